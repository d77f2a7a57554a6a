import { LocalCounts, localAllowance, WINDOW_MARGIN_MS } from './local-counts.js';

const MINUTE = { ttl: 60_000, blockDuration: 60_000 };

/** A key whose window Redis has just answered: `count` hits so far, a minute left. */
function known(limit: number, count: number, now = 0): LocalCounts {
  const counts = new LocalCounts();
  counts.settle('k', 1, { ...MINUTE, limit }, count, 60_000, now);
  return counts;
}

describe('LocalCounts', () => {
  it('lets nothing through locally for a limit under 100, nor for a key Redis has not answered', () => {
    expect(localAllowance(99)).toBe(0);
    expect(known(99, 1).admit('k', 99, 1)).toBeNull();
    expect(new LocalCounts().admit('k', 10_000, 1)).toBeNull();
  });

  it('lets 1 % of the limit through before Redis counts it, numbering each hit as a single process sees it', () => {
    const counts = known(1200, 5);
    const admitted = Array.from({ length: 13 }, () => counts.admit('k', 1200, 10)?.totalHits ?? null);
    expect(admitted).toEqual([6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, null]);
    expect(counts.take('k')).toBe(12);
    // Sent, not answered: still counted, and still unconfirmed, so the allowance stays used until Redis answers.
    expect(counts.admit('k', 1200, 11)).toBeNull();
    counts.settle('k', 12, { ...MINUTE, limit: 1200 }, 17, 59_000, 12);
    expect(counts.admit('k', 1200, 13)?.totalHits).toBe(18);
  });

  it('never lets a hit through locally past the limit', () => {
    const counts = known(1000, 995);
    const admitted = Array.from({ length: 10 }, () => counts.admit('k', 1000, 10) !== null);
    expect(admitted.filter(Boolean)).toHaveLength(5);
  });

  it('sends the count to Redis near the end of the window, and forgets hits of a window that ended', () => {
    const counts = known(10_000, 1);
    expect(counts.admit('k', 10_000, 60_000 - WINDOW_MARGIN_MS - 1)).not.toBeNull();
    expect(counts.admit('k', 10_000, 60_000 - WINDOW_MARGIN_MS)).toBeNull();
    expect(counts.takeAll(60_000)).toEqual([]);
    expect(counts.size).toBe(0);
  });

  it('takes a newer count from Redis, and a new window when Redis started one', () => {
    const counts = known(10_000, 10);
    counts.admit('k', 10_000, 1);
    const [sent] = counts.takeAll(2);
    expect(sent).toMatchObject({ key: 'k', hits: 1, limit: 10_000 });
    // Another instance counted 50 meanwhile.
    counts.settle('k', 1, { ...MINUTE, limit: 10_000 }, 61, 59_000, 3);
    expect(counts.admit('k', 10_000, 4)?.totalHits).toBe(62);
    // Redis's window ended and a new one began: its count replaces the old, the pending hit is not carried over.
    counts.settle('k', 1, { ...MINUTE, limit: 10_000 }, 1, 60_000, 61_000);
    expect(counts.admit('k', 10_000, 61_001)?.totalHits).toBe(2);
    expect(counts.take('k')).toBe(1);
  });

  it('counts a request on its way to Redis, and frees its place when Redis answers', () => {
    const counts = known(1200, 5);
    expect(counts.take('k', 1)).toBe(0);
    // Five counted, one on its way: the next hit here is the seventh.
    expect(counts.admit('k', 1200, 1)?.totalHits).toBe(7);
    counts.settle('k', 1, { ...MINUTE, limit: 1200 }, 6, 59_000, 2);
    expect(counts.admit('k', 1200, 3)?.totalHits).toBe(8);
  });

  it('lets nothing through locally while Redis blocks the key, also in the window after the one it began in', () => {
    const counts = known(1200, 1200);
    // Over the limit at 10 s: blocked for a minute, past the window's end at 60 s.
    counts.settle('k', 1, { ...MINUTE, limit: 1200 }, 1201, 50_000, 10_000, 60_000);
    // At 60 s Redis starts a new window with the refused hit: the block still holds until 70 s.
    counts.settle('k', 1, { ...MINUTE, limit: 1200 }, 1, 60_000, 60_000, 10_000);
    expect(counts.admit('k', 1200, 65_000)).toBeNull();
    expect(counts.admit('k', 1200, 70_001)?.totalHits).toBe(2);
  });
});
