import { ApiError } from '../errors/api-error.js';
import { decodeCursor, encodeCursor, toPage } from './pagination.js';

describe('cursor pagination', () => {
  const rows = [3, 2, 1].map((n) => ({
    id: `00000000-0000-4000-8000-00000000000${n}`,
    created_at: new Date(Date.UTC(2026, 0, n)),
  }));

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
