import { kindOfStatus, redact, retryAfterMs } from './platform-http.js';

describe('platform HTTP classification', () => {
  it('maps statuses to kinds', () => {
    expect([401, 429, 500, 503, 408, 400, 403, 404, 422].map(kindOfStatus)).toEqual([
      'auth_expired',
      'rate_limited',
      'transient',
      'transient',
      'transient',
      'rejected',
      'rejected',
      'rejected',
      'rejected',
    ]);
  });

  it('reads Retry-After in seconds or as a date, else x-rate-limit-reset', () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': '12' }), now)).toBe(12_000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Tue, 01 Jan 2030 00:01:00 GMT' }), now)).toBe(60_000);
    expect(retryAfterMs(new Headers({ 'x-rate-limit-reset': String(now / 1000 + 90) }), now)).toBe(90_000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers(), now)).toBeUndefined();
  });

  it('redacts the call’s secrets and keeps messages to one short line', () => {
    expect(redact('bad token abc123secret in\n\nrequest', ['abc123secret', null])).toBe(
      'bad token [redacted] in request',
    );
    expect(redact('x'.repeat(500), [])).toHaveLength(300);
  });
});
