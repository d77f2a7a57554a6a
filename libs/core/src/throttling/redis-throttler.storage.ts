import { AsyncResource } from 'node:async_hooks';
import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { Redis } from 'ioredis';
import { InjectRedis } from '../redis/redis.module.js';
import { FLUSH_DELAY_MS, LocalCounts, type HitRecord, type PendingHits } from './local-counts.js';

// Fixed window per key, counted atomically in Redis so every instance shares the same limits. ARGV[4] hits
// are counted at once: this request's and those let through locally since the last count (local-counts.ts).
const INCREMENT = `
local hits = redis.call('INCRBY', KEYS[1], ARGV[4])
if hits == tonumber(ARGV[4]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
local blocked = redis.call('PTTL', KEYS[2])
if blocked <= 0 and hits > tonumber(ARGV[2]) then
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
  blocked = tonumber(ARGV[3])
end
return {hits, ttl, blocked}
`;

/**
 * Request rate limits in Redis. While Redis is unreachable the limits are not enforced (fail open,
 * with one warning per outage): the API's own work needs only PostgreSQL, and a store should keep
 * taking orders while the queue server restarts. Sign-in limits (`count`) fail closed instead, and are
 * counted in Redis on every attempt.
 *
 * A request's hit is let through without a Redis round trip while its key is well below the limit, and
 * counted in Redis with others a few milliseconds later (local-counts.ts says how much error that allows).
 */
@Injectable()
export class RedisThrottlerStorage implements ThrottlerStorage, OnModuleDestroy {
  private readonly logger = new Logger(RedisThrottlerStorage.name);
  private unenforced = false;
  private readonly local = new LocalCounts();
  private flushTimer: NodeJS.Timeout | undefined;
  /**
   * The context the flush runs in: made with the storage, outside any request, so that the flush (shared
   * by every request's hits) neither keeps a request's context alive nor logs as that request.
   */
  private readonly outsideRequests = new AsyncResource('storefront:rate-limit-flush');

  private readonly hit: (...args: (string | number)[]) => Promise<number[]>;

  constructor(@InjectRedis() private readonly redis: Redis) {
    // A named script: sent as EVALSHA (its hash, not its text) after the first call.
    redis.defineCommand('storefrontThrottleHit', { numberOfKeys: 2, lua: INCREMENT });
    const command = (redis as unknown as Record<string, (...args: (string | number)[]) => Promise<number[]>>)
      .storefrontThrottleHit;
    this.hit = command.bind(redis);
  }

  /**
   * ThrottlerStorage: counts a hit, here while the key is well below its limit, else in Redis together with
   * the hits let through here before it; fails open while Redis is unreachable.
   */
  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<HitRecord> {
    const base = `throttle:${throttlerName}:${key}`;
    const admitted = this.local.admit(base, limit, Date.now());
    if (admitted !== null) {
      this.flushSoon();
      return admitted;
    }
    // This request's hit goes with those let through here before it, and counts as on its way meanwhile.
    const earlier = this.local.take(base, 1);
    const settings = { ttl, limit, blockDuration: blockDuration || ttl };
    try {
      const [record, ttlMs, blockedMs] = await this.countHits(base, settings, earlier + 1, false);
      this.local.settle(base, earlier + 1, settings, record.totalHits, ttlMs, Date.now(), blockedMs);
      this.enforced();
      return record;
    } catch (error) {
      this.local.drop(base, earlier + 1);
      this.unreachable(error);
      return { totalHits: 0, timeToExpire: Math.ceil(ttl / 1000), isBlocked: false, timeToBlockExpire: 0 };
    }
  }

  /** Sends the hits let through here to Redis before the process stops. */
  async onModuleDestroy(): Promise<void> {
    clearTimeout(this.flushTimer);
    await this.flush();
  }

  /** Sends every key's hits let through here, in one pipeline, a few milliseconds from now. */
  private flushSoon(): void {
    if (this.flushTimer !== undefined) return;
    this.flushTimer = this.outsideRequests.runInAsyncScope(() =>
      setTimeout(() => {
        this.flushTimer = undefined;
        void this.flush();
      }, FLUSH_DELAY_MS),
    );
    this.flushTimer.unref();
  }

  private async flush(): Promise<void> {
    const pending = this.local.takeAll(Date.now());
    if (pending.length === 0) return;
    if (this.redis.status !== 'ready') {
      for (const { key, hits } of pending) this.local.drop(key, hits);
      return this.unreachable(new Error(`Redis is ${this.redis.status}`));
    }
    const pipeline = this.redis.pipeline();
    const add = (pipeline as unknown as Record<string, (...args: (string | number)[]) => unknown>)
      .storefrontThrottleHit;
    for (const entry of pending) add.call(pipeline, ...this.scriptArgs(entry.key, entry, entry.hits));
    const answers = await pipeline.exec().catch((error: unknown) => error as Error);
    const now = Date.now();
    let failure: Error | null = answers instanceof Error ? answers : null;
    pending.forEach((entry: PendingHits, index) => {
      const [error, result] = answers instanceof Error ? [answers] : (answers?.[index] ?? [new Error('no answer')]);
      if (error) {
        failure ??= error;
        return this.local.drop(entry.key, entry.hits);
      }
      const [hits, ttlMs, blockedMs] = result as number[];
      this.local.settle(entry.key, entry.hits, entry, hits, ttlMs, now, blockedMs);
    });
    // Hits Redis did not take (a failover's READONLY, out of memory) went uncounted: said once, as an outage.
    if (failure !== null) this.unreachable(failure);
    else this.enforced();
  }

  private enforced(): void {
    if (this.unenforced) this.logger.log('Redis is back; rate limits enforced again');
    this.unenforced = false;
  }

  private unreachable(error: unknown): void {
    if (!this.unenforced)
      this.logger.warn({ err: { message: (error as Error).message } }, 'rate limits not enforced until Redis is back');
    this.unenforced = true;
  }

  /**
   * Counts a hit in the key's fixed window. Throws at once while Redis is not connected, unless
   * `queueWhileConnecting` (the sign-in limiter, which has checked the client is making a connection
   * rather than lost one): then the count waits for the connection being made.
   */
  async count(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
    queueWhileConnecting = false,
  ): Promise<HitRecord> {
    const settings = { ttl, limit, blockDuration: blockDuration || ttl };
    const [record] = await this.countHits(`throttle:${throttlerName}:${key}`, settings, 1, queueWhileConnecting);
    return record;
  }

  /**
   * Counts `hits` in Redis at once (the last of them this request's); returns the last one's record and the
   * window's time left in milliseconds.
   */
  private async countHits(
    base: string,
    settings: Omit<PendingHits, 'key' | 'hits'>,
    hits: number,
    queueWhileConnecting: boolean,
  ): Promise<[HitRecord, number, number]> {
    // Not connected: fail now rather than wait in the reconnect queue.
    if (this.redis.status !== 'ready' && !queueWhileConnecting) throw new Error(`Redis is ${this.redis.status}`);
    const [count, ttlMs, blockedMs] = await this.hit(...this.scriptArgs(base, settings, hits));
    const record = {
      totalHits: count,
      timeToExpire: Math.max(0, Math.ceil(ttlMs / 1000)),
      isBlocked: blockedMs > 0,
      timeToBlockExpire: Math.max(0, Math.ceil(blockedMs / 1000)),
    };
    return [record, ttlMs, blockedMs];
  }

  private scriptArgs(base: string, settings: Omit<PendingHits, 'key' | 'hits'>, hits: number): (string | number)[] {
    return [base, `${base}:blocked`, settings.ttl, settings.limit, settings.blockDuration, hits];
  }
}
