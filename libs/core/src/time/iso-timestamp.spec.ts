import fc from 'fast-check';
import { isoTimestamp } from './iso-timestamp.js';

/** toISOString's answer, or the name of what it threw. */
function reference(date: Date): string {
  try {
    return date.toISOString();
  } catch (error) {
    return `threw ${(error as Error).name}`;
  }
}

function ours(date: Date): string {
  try {
    return isoTimestamp(date);
  } catch (error) {
    return `threw ${(error as Error).name}`;
  }
}

const FIRST = Date.parse('0000-01-01T00:00:00.000Z');
const LAST = Date.parse('9999-12-31T23:59:59.999Z');

describe('isoTimestamp', () => {
  it('writes what toISOString writes, for any instant Date can hold', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -8.64e15, max: 8.64e15 }),
        (time) => ours(new Date(time)) === reference(new Date(time)),
      ),
      { numRuns: 20_000 },
    );
  });

  it('writes what toISOString writes around the four-digit years, leap days and the epoch', () => {
    const near = fc.oneof(
      ...[FIRST, LAST, 0, Date.parse('2000-02-29T23:59:59.999Z'), Date.parse('1900-03-01T00:00:00.000Z')].map((at) =>
        fc.integer({ min: at - 4 * 86_400_000, max: at + 4 * 86_400_000 }),
      ),
    );
    fc.assert(
      fc.property(near, (time) => ours(new Date(time)) === reference(new Date(time))),
      { numRuns: 20_000 },
    );
  });

  it('the edges and the invalid date', () => {
    for (const time of [FIRST - 1, FIRST, LAST, LAST + 1, -1, 0, 8.64e15, -8.64e15, NaN]) {
      expect(ours(new Date(time))).toBe(reference(new Date(time)));
    }
    expect(isoTimestamp(new Date(Date.UTC(2026, 10, 27, 15, 13, 34, 5)))).toBe('2026-11-27T15:13:34.005Z');
    expect(isoTimestamp(new Date(FIRST))).toBe('0000-01-01T00:00:00.000Z');
    expect(ours(new Date(NaN))).toBe('threw RangeError');
  });
});
