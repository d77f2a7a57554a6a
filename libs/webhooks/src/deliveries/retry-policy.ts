import { MAX_DELIVERY_ATTEMPTS } from '../webhooks/webhook.js';
import type { DeliveryStatus } from './delivery.js';

/** What an attempt's answer makes of its delivery: done, failed for good, or due again at `nextAttemptAt`. */
export interface RetryDecision {
  deliveryStatus: Extract<DeliveryStatus, 'succeeded' | 'failed' | 'pending'>;
  nextAttemptAt: Date | null;
}

/**
 * The retry policy, after attempt `attempt` (1 for the first) got `statusCode` (null: no answer). A 2xx
 * succeeds. A 410 Gone fails the delivery at once, and so does the last attempt: the MAX_DELIVERY_ATTEMPTS-th,
 * or an earlier one when `delays` (WEBHOOK_RETRY_DELAYS_MS, the first for attempt 1) lists fewer. Anything
 * else is tried again `delays[attempt]` after `now`.
 */
export function decideRetry(
  attempt: number,
  statusCode: number | null,
  delays: readonly number[],
  now = Date.now(),
): RetryDecision {
  if (statusCode !== null && statusCode >= 200 && statusCode < 300)
    return { deliveryStatus: 'succeeded', nextAttemptAt: null };
  const lastAttempt = attempt >= Math.min(MAX_DELIVERY_ATTEMPTS, delays.length) || statusCode === 410;
  if (lastAttempt) return { deliveryStatus: 'failed', nextAttemptAt: null };
  return { deliveryStatus: 'pending', nextAttemptAt: new Date(now + delays[attempt]) };
}

/** Why a failed delivery disabled its webhook, as the webhook, the log and the merchant's notification say it. */
export function failureReason(outcome: { attempt: number; statusCode: number | null; error: string | null }): string {
  return outcome.statusCode === 410
    ? 'The receiver answered 410 Gone'
    : `${outcome.attempt} delivery attempts failed; the last: ${outcome.error ?? 'unknown error'}`;
}
