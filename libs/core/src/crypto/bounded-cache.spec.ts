import { BoundedCache } from './bounded-cache.js';

describe('BoundedCache', () => {
  it('keeps at most its capacity, forgetting the oldest entry first', () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect(cache.size).toBe(2);
    expect(cache.get('a')).toBeUndefined();
    expect([cache.get('b'), cache.get('c')]).toEqual([2, 3]);
  });

  it('computes a missing value once and reuses it', () => {
    const cache = new BoundedCache<string, string>(10);
    let made = 0;
    const make = (key: string) => `${key}:${++made}`;
    expect(cache.getOrSet('k', make)).toBe('k:1');
    expect(cache.getOrSet('k', make)).toBe('k:1');
    expect(made).toBe(1);
  });

  it('replacing a key of a full cache evicts nothing else', () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('a', 10);
    expect([cache.get('a'), cache.get('b')]).toEqual([10, 2]);
  });
});
