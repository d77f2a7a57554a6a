import { pause } from './platform-http.js';

/**
 * How long a publish waits for a platform to finish processing media (Instagram and Threads
 * containers, TikTok's pull from the URL, X video): a few polls with a doubling pause. Publishing
 * runs in the request (publish now) or the worker, so the wait stays short; what happens when it
 * runs out is each platform's decision (see its class).
 */
export interface PollingOptions {
  /** Status requests at most (the first one immediately). */
  attempts: number;
  /** Pause before the second request; doubled after each, up to `maxDelayMs`. */
  firstDelayMs: number;
  maxDelayMs: number;
}

/** 6 polls over about 12 s: pauses of 0.5, 1, 2, 4 and 4 seconds between them. */
export const DEFAULT_POLLING: PollingOptions = Object.freeze({ attempts: 6, firstDelayMs: 500, maxDelayMs: 4000 });

/**
 * Calls `check` until it returns a value (not undefined), at most `attempts` times; undefined when
 * it never did. `check` throws to stop early (a failed status).
 */
export async function pollUntil<T>(
  options: PollingOptions,
  check: () => Promise<T | undefined>,
): Promise<T | undefined> {
  let delay = options.firstDelayMs;
  for (let attempt = 0; attempt < options.attempts; attempt++) {
    if (attempt > 0) {
      await pause(delay);
      delay = Math.min(delay * 2, options.maxDelayMs);
    }
    const value = await check();
    if (value !== undefined) return value;
  }
  return undefined;
}
