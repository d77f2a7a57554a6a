import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { createRedis, REDIS, RedisThrottlerStorage, type RedisConfig } from '@app/core';
import { FLUSH_DELAY_MS } from '../libs/core/src/throttling/local-counts.js';
import { merchantWithStore, startApp } from './support/app.js';

/**
 * The request rate limit counts hits locally while a key is well below its limit and sends them to Redis
 * together (libs/core/src/throttling/local-counts.ts), on the real Redis: what Redis holds, when, and how far
 * two instances sharing a limit can pass it.
 */
describe('rate limit: hits counted locally, then in Redis', () => {
  const prefix = `${process.env.REDIS_PREFIX}local-counts:`;
  const clients: Redis[] = [];
  /** An instance's storage on a client of its own, connected (a client still connecting fails open). */
  const instance = async () => {
    const redis = createRedis({ REDIS_URL: process.env.REDIS_URL!, REDIS_PREFIX: prefix } as RedisConfig);
    clients.push(redis);
    await redis.ping();
    return new RedisThrottlerStorage(redis);
  };
  const inRedis = async (key: string) => Number((await clients[0].get(`throttle:default:${key}`)) ?? 0);
  const settled = () => new Promise((resolve) => setTimeout(resolve, FLUSH_DELAY_MS * 4));

  beforeAll(() => instance());
  afterAll(async () => {
    const keys = await clients[0].keys(`${prefix}*`);
    if (keys.length > 0) await clients[0].del(...keys.map((key) => key.slice(prefix.length)));
    for (const redis of clients) redis.disconnect();
  });

  it('counts every hit in Redis as it comes for a limit under 100', async () => {
    const storage = new RedisThrottlerStorage(clients[0]);
    const key = randomUUID();
    const seen: number[] = [];
    for (let hit = 1; hit <= 30; hit++) {
      await storage.increment(key, 60_000, 99, 60_000, 'default');
      seen.push(await inRedis(key));
    }
    expect(seen).toEqual(Array.from({ length: 30 }, (_, index) => index + 1));
  });

  it('numbers a single instance’s hits exactly, and Redis has them all a few milliseconds later', async () => {
    const storage = new RedisThrottlerStorage(clients[0]);
    const key = randomUUID();
    const totals: number[] = [];
    for (let hit = 0; hit < 150; hit++)
      totals.push((await storage.increment(key, 60_000, 10_000, 60_000, 'default')).totalHits);
    expect(totals).toEqual(Array.from({ length: 150 }, (_, index) => index + 1));
    // Up to 1 % of the limit (100) waits to be sent with others.
    expect(await inRedis(key)).toBeLessThan(150);
    expect(await inRedis(key)).toBeGreaterThanOrEqual(50);
    await settled();
    expect(await inRedis(key)).toBe(150);
  });

  it('lets two instances sharing a limit pass it by at most 1 % of it each, and counts every hit', async () => {
    const [one, two] = [await instance(), await instance()];
    const key = randomUUID();
    const limit = 1000;
    let allowed = 0;
    for (let burst = 0; burst < 35; burst++) {
      const records = await Promise.all(
        Array.from({ length: 40 }, (_, index) =>
          (index % 2 ? one : two).increment(key, 60_000, limit, 60_000, 'default'),
        ),
      );
      allowed += records.filter((record) => !record.isBlocked).length;
    }
    expect(allowed).toBeGreaterThanOrEqual(limit);
    expect(allowed).toBeLessThanOrEqual(limit + 2 * 10);
    await settled();
    expect(await inRedis(key)).toBe(35 * 40);
  });

  it('sends the hits from outside the request that let them through (no request context kept)', async () => {
    const storage = new RedisThrottlerStorage(clients[0]);
    const key = randomUUID();
    await storage.increment(key, 60_000, 10_000, 60_000, 'default');
    const request = new AsyncLocalStorage<string>();
    const seen: (string | undefined)[] = [];
    const pipeline = clients[0].pipeline.bind(clients[0]);
    clients[0].pipeline = ((...args: Parameters<typeof pipeline>) => {
      seen.push(request.getStore());
      return pipeline(...args);
    }) as typeof pipeline;
    try {
      await request.run('request 1', () => storage.increment(key, 60_000, 10_000, 60_000, 'default'));
      await settled();
    } finally {
      delete (clients[0] as { pipeline?: unknown }).pipeline;
    }
    expect(seen).toEqual([undefined]);
    expect(await inRedis(key)).toBe(2);
  });

  it('sends what it let through before the process stops', async () => {
    const storage = new RedisThrottlerStorage(clients[0]);
    const key = randomUUID();
    for (let hit = 0; hit < 20; hit++) await storage.increment(key, 60_000, 10_000, 60_000, 'default');
    await storage.onModuleDestroy();
    expect(await inRedis(key)).toBe(20);
  });

  it('through the app: RateLimit-Remaining counts down one by one, and Redis ends with every request', async () => {
    const api = await startApp({ RATE_LIMIT_PER_MINUTE: '5000', REDIS_PREFIX: `${prefix}app:` });
    try {
      const { token, storeId } = await merchantWithStore(api);
      const remaining: string[] = [];
      for (let request = 0; request < 60; request++) {
        const answer = await fetch(`${api.url}/functions/v1/stores/${storeId}/products`, {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(answer.status).toBe(200);
        remaining.push(answer.headers.get('ratelimit-remaining') ?? 'none');
      }
      expect(remaining).toEqual(Array.from({ length: 60 }, (_, index) => String(4999 - index)));
      await settled();
      const redis = api.app.get<Redis>(REDIS);
      const keys = (await redis.keys(`${prefix}app:throttle:default:*`)).filter((key) => !key.endsWith(':blocked'));
      const counts = await Promise.all(keys.map((key) => redis.get(key.slice(`${prefix}app:`.length))));
      // The merchant's products route, counted 60 times; the sign-up and the store's creation on their own routes.
      expect(counts.map(Number).sort((a, b) => b - a)[0]).toBe(60);
    } finally {
      await api.close();
    }
  });
});
