import { ApiError } from '../errors/api-error.js';
import { decodePreciseCursor, encodeCursor, encodePreciseCursor, toPageWith } from './pagination.js';

describe('precise cursor pagination', () => {
  const row = { id: '00000000-0000-4000-8000-000000000001', position: '2026-11-22T10:00:00.123456Z' };

  it('round-trips the microseconds a JSON date would lose', () => {
    expect(decodePreciseCursor(encodePreciseCursor(row))).toEqual({ at: row.position, id: row.id });
    const next = { ...row, id: '00000000-0000-4000-8000-000000000002' };
    const page = toPageWith([row, next], 1, (r) => r.id, encodePreciseCursor);
    expect(page.data).toEqual([row.id]);
    expect(decodePreciseCursor(page.next_cursor!)).toEqual({ at: row.position, id: row.id });
  });

  it('refuses a cursor it did not make, or a time PostgreSQL would not read, with a 400', () => {
    const made = (p: unknown, i: unknown = row.id) => Buffer.from(JSON.stringify({ p, i })).toString('base64url');
    for (const bad of [
      'garbage',
      encodeCursor({ id: row.id, created_at: new Date() }),
      made('2026-11-22T10:00:00.123Z'),
      made('2026-02-30T10:00:00.123456Z'),
      made('0000-01-01T00:00:00.000000Z'),
      made("2026-11-22T10:00:00.123456Z'; DROP"),
      made(row.position, 'not-a-uuid'),
      made(12),
    ]) {
      expect(() => decodePreciseCursor(bad)).toThrow(ApiError);
    }
    expect(decodePreciseCursor(undefined)).toBeNull();
  });
});
