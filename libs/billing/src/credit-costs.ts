import { ConfigError } from '@app/core';

/** The functions that cost AI credits, by route name. */
export const AI_FUNCTIONS = [
  'generate-product',
  'generate-blog-cover',
  'generate-blog-autopilot',
  'research-social-context',
  'social-generate-content',
] as const;
export type AiFunction = (typeof AI_FUNCTIONS)[number];

/** Credits charged per call (the seed's table). */
export const CREDIT_COSTS: Readonly<Record<AiFunction, number>> = {
  'generate-product': 2,
  'generate-blog-cover': 3,
  'generate-blog-autopilot': 5,
  'research-social-context': 2,
  'social-generate-content': 1,
};

/** Calls per store and function over a rolling hour (the seed's table; social-generate-content is ours). */
export const DEFAULT_HOURLY_LIMITS: Readonly<Record<AiFunction, number>> = {
  'generate-product': 100,
  'generate-blog-cover': 50,
  'generate-blog-autopilot': 20,
  'research-social-context': 30,
  'social-generate-content': 60,
};

export const USAGE_WINDOW_SECONDS = 3600;

export function isAiFunction(value: string): value is AiFunction {
  return (AI_FUNCTIONS as readonly string[]).includes(value);
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
        `AI_HOURLY_LIMITS (${JSON.stringify(override)}): unknown function "${name}" (known: ${AI_FUNCTIONS.join(', ')})`,
      ]);
    }
    limits[name] = Number(count);
  }
  return limits;
}
