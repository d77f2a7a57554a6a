import { AI_FUNCTIONS, isAiFunctionName, type AiFunctionName } from '@app/ai';
import { ConfigError } from '@app/core';

/**
 * The price list and hourly maxima, as the AI functions declare them beside their commands (each
 * function's folder in libs/ai; `AI_FUNCTIONS` lists them). Billing keeps no figures of its own.
 */

/** A function that costs AI credits, by route name. */
export type AiFunction = AiFunctionName;

/** The charged functions' names, in the order `GET /functions/v1/credits` reports their usage. */
export const AI_FUNCTION_NAMES: readonly AiFunction[] = AI_FUNCTIONS.map((fn) => fn.name);

/** Credits charged per call. */
export const CREDIT_COSTS: Readonly<Record<AiFunction, number>> = Object.freeze(
  Object.fromEntries(AI_FUNCTIONS.map((fn) => [fn.name, fn.credits])) as Record<AiFunction, number>,
);

/** Calls per store and function over a rolling hour, unless AI_HOURLY_LIMITS says otherwise. */
export const DEFAULT_HOURLY_LIMITS: Readonly<Record<AiFunction, number>> = Object.freeze(
  Object.fromEntries(AI_FUNCTIONS.map((fn) => [fn.name, fn.hourlyLimit])) as Record<AiFunction, number>,
);

export const USAGE_WINDOW_SECONDS = 3600;

export function isAiFunction(value: string): value is AiFunction {
  return isAiFunctionName(value);
}

/**
 * The hourly maxima with `AI_HOURLY_LIMITS` applied (`generate-product:100,social-generate-content:60`).
 * Throws a ConfigError on a function name it does not know, so a typo fails at boot instead of being ignored.
 */
export function hourlyLimits(override: string | undefined): Record<AiFunction, number> {
  const limits = { ...DEFAULT_HOURLY_LIMITS };
  for (const part of (override ?? '').split(',')) {
    if (!part.trim()) continue;
    const [name, count] = part.split(':').map((item) => item.trim());
    if (!isAiFunction(name)) {
      throw new ConfigError([
        `AI_HOURLY_LIMITS (${JSON.stringify(override)}): unknown ` +
          `function "${name}" (known: ${AI_FUNCTION_NAMES.join(', ')})`,
      ]);
    }
    limits[name] = Number(count);
  }
  return limits;
}
