import { ApiError } from '../errors/api-error.js';
import { decodeCursor, decodePreciseCursor, encodeCursor, encodePreciseCursor, toPage, toPageWith } from './pagination.js';

describe('cursor pagination', () => {
  const rows = [3, 2, 1].map((n) => ({ id: `00000000-0000-4000-8000-00000000000${n}`, created_at: new Date(Date.UTC(2026, 0, n)) }));

  it('round-trips a cursor', () => {
    const cursor = decodeCursor(encodeCursor(rows[1]));
    expect(cursor).toEqual({ id: rows[1].id, createdAt: rows[1].created_at });
  });

  it('cuts the extra row into next_cursor, pointing after the last item shown', () => {
    const page = toPage(rows, 2, (row) => row.id);
    expect(page.data).toEqual([rows[0].id, rows[1].id]);
    expect(decodeCursor(page.next_cursor!)?.id).toBe(rows[1].id);
    expect(toPage(rows, 3, (row) => row.id).next_cursor).toBeNull();
  });

  it('refuses a cursor it did not make with a 400', () => {
    for (const bad of [
      'garbage',
      Buffer.from('{"t":"x","i":"y"}').toString('base64url'),
      Buffer.from('{"t":"2026-01-01","i":"1; DROP"}').toString('base64url'),
    ]) {
      expect(() => decodeCursor(bad)).toThrow(ApiError);
    }
    expect(decodeCursor(undefined)).toBeNull();
  });
});

describe('precise cursor pagination', () => {
  const row = { id: '00000000-0000-4000-8000-000000000001', position: '2026-11-22T10:00:00.123456Z' };

  it('round-trips the microseconds a JSON date would lose', () => {
    expect(decodePreciseCursor(encodePreciseCursor(row))).toEqual({ at: row.position, id: row.id });
    const page = toPageWith([row, { ...row, id: '00000000-0000-4000-8000-000000000002' }], 1, (r) => r.id, encodePreciseCursor);
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
