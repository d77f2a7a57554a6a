import { describe, expect, it } from 'vitest';
import { MAX_DELIVERY_ATTEMPTS } from '../webhooks/webhook.js';
import { decideRetry, failureReason } from './retry-policy.js';

const DELAYS = [0, 60_000, 300_000, 1_800_000, 3_600_000];
const NOW = Date.parse('2026-11-22T10:00:00.000Z');

describe('decideRetry', () => {
  it('ends the delivery on any 2xx, whatever the attempt', () => {
    expect(decideRetry(1, 200, DELAYS, NOW)).toEqual({ deliveryStatus: 'succeeded', nextAttemptAt: null });
    expect(decideRetry(5, 299, DELAYS, NOW)).toEqual({ deliveryStatus: 'succeeded', nextAttemptAt: null });
  });

  it('tries a failed attempt again after the delay of the next one', () => {
    expect(decideRetry(1, 500, DELAYS, NOW)).toEqual({
      deliveryStatus: 'pending',
      nextAttemptAt: new Date(NOW + 60_000),
    });
    expect(decideRetry(4, 302, DELAYS, NOW)).toEqual({
      deliveryStatus: 'pending',
      nextAttemptAt: new Date(NOW + 3_600_000),
    });
  });

  it('tries again when the receiver did not answer at all', () => {
    expect(decideRetry(2, null, DELAYS, NOW)).toEqual({
      deliveryStatus: 'pending',
      nextAttemptAt: new Date(NOW + 300_000),
    });
  });

  it('fails the delivery on a 410 Gone at once', () => {
    expect(decideRetry(1, 410, DELAYS, NOW)).toEqual({ deliveryStatus: 'failed', nextAttemptAt: null });
  });

  it('fails the delivery on its 5th failed attempt', () => {
    expect(MAX_DELIVERY_ATTEMPTS).toBe(5);
    expect(decideRetry(5, 500, DELAYS, NOW)).toEqual({ deliveryStatus: 'failed', nextAttemptAt: null });
    expect(decideRetry(5, null, DELAYS, NOW)).toEqual({ deliveryStatus: 'failed', nextAttemptAt: null });
  });

  it('fails on the 5th attempt even when more delays are configured', () => {
    const many = [0, 10, 20, 30, 40, 50, 60, 70];
    expect(decideRetry(4, 500, many, NOW)).toEqual({ deliveryStatus: 'pending', nextAttemptAt: new Date(NOW + 40) });
    expect(decideRetry(5, 500, many, NOW)).toEqual({ deliveryStatus: 'failed', nextAttemptAt: null });
  });

  it('fails earlier when fewer delays are configured: one attempt per delay', () => {
    expect(decideRetry(2, 500, [0, 10, 20], NOW)).toEqual({
      deliveryStatus: 'pending',
      nextAttemptAt: new Date(NOW + 20),
    });
    expect(decideRetry(3, 500, [0, 10, 20], NOW)).toEqual({ deliveryStatus: 'failed', nextAttemptAt: null });
    expect(decideRetry(1, 500, [0], NOW)).toEqual({ deliveryStatus: 'failed', nextAttemptAt: null });
  });
});

describe('failureReason', () => {
  it('names a 410 Gone', () => {
    expect(failureReason({ attempt: 1, statusCode: 410, error: 'Receiver answered 410' })).toBe(
      'The receiver answered 410 Gone',
    );
  });

  it('counts the attempts and quotes the last error', () => {
    expect(failureReason({ attempt: 5, statusCode: 500, error: 'Receiver answered 500' })).toBe(
      '5 delivery attempts failed; the last: Receiver answered 500',
    );
    expect(failureReason({ attempt: 5, statusCode: null, error: null })).toBe(
      '5 delivery attempts failed; the last: unknown error',
    );
  });
});
