import { createHash, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Redis } from 'ioredis';
import { GoTrueError, InjectRedis, RedisThrottlerStorage } from '@app/core';

// Sliding windows kept as sorted sets of attempt ids scored by time. All windows are checked, then
// the attempt is added to all of them, in one step: parallel attempts cannot pass a limit together.
// KEYS: the windows; ARGV: now, the attempt's id, then each window's limit and length (ms).
// Returns 0 when reserved, else the milliseconds until the fullest window has room.
const RESERVE = `
local now = tonumber(ARGV[1])
local wait = 0
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[1 + 2 * i])
  local length = tonumber(ARGV[2 + 2 * i])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - length)
  if redis.call('ZCARD', key) >= limit then
    local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    wait = math.max(wait, tonumber(oldest[2]) + length - now)
  end
end
if wait > 0 then return wait end
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now, ARGV[2])
  redis.call('PEXPIRE', key, ARGV[2 + 2 * i])
end
return 0
`;

/** A sliding window: its key, how many entries it holds, and its length in milliseconds. */
export type SlidingWindow = [key: string, limit: number, lengthMs: number];

/** The 429 of a limit: its GoTrue code and message, given the seconds to wait. */
export type Refusal = (retryAfterSeconds: number) => GoTrueError;

export const tooManyRequests =
  (what: string, code = 'over_request_rate_limit'): Refusal =>
  (retryAfter) =>
    new GoTrueError(429, code, `Too many ${what}, retry in ${retryAfter} seconds`, {
      'Retry-After': String(retryAfter),
    });

/** A key part for an e-mail address: bounded in length whatever was sent, and no addresses in Redis. */
export function addressKey(email: string): string {
  return createHash('sha256').update(email.trim().toLowerCase()).digest('base64url');
}

/**
 * The /auth/v1 limits' counting in Redis, shared by every instance, failing closed: while Redis is
 * unreachable a limited route answers 503 rather than let attempts go uncounted (a guessing or
 * flooding limit that lifts with Redis is none).
 */
@Injectable()
export class RedisWindows {
  constructor(
    private readonly storage: RedisThrottlerStorage,
    @InjectRedis() readonly redis: Redis,
  ) {}

  /** Counts a hit in the fixed window of `name` and `key`; throws the refusal over `limit`. */
  hit(name: string, key: string, limit: number, windowMs: number, refuse: Refusal): Promise<void> {
    return this.failClosed(async () => {
      const count = await this.storage.count(key, windowMs, limit, windowMs, name, true);
      if (count.isBlocked) throw refuse(Math.max(1, count.timeToBlockExpire));
    });
  }

  /** Adds an entry to every window, or to none when one is full (the refusal); returns the entry's id. */
  reserve(windows: SlidingWindow[], refuse: Refusal): Promise<string> {
    return this.failClosed(async () => {
      const id = randomUUID();
      const waitMs = (await this.redis.eval(
        RESERVE,
        windows.length,
        ...windows.map(([key]) => key),
        Date.now(),
        id,
        ...windows.flatMap(([, limit, length]) => [limit, length]),
      )) as number;
      if (waitMs > 0) throw refuse(Math.max(1, Math.ceil(waitMs / 1000)));
      return id;
    });
  }

  /** Takes an entry out of its windows again (the attempt did not count against them). */
  async release(keys: string[], id: string): Promise<void> {
    if (keys.length === 0) return;
    const batch = this.redis.multi();
    for (const key of keys) batch.zrem(key, id);
    await batch.exec();
  }

  /** Runs Redis work; anything but a refusal becomes a 503 with Retry-After. */
  async failClosed<T>(
    work: () => Promise<T>,
    unavailable = 'This is briefly unavailable, retry in a few seconds',
  ): Promise<T> {
    try {
      this.assertReachable();
      return await work();
    } catch (error) {
      if (error instanceof GoTrueError) throw error;
      throw new GoTrueError(503, 'service_unavailable', unavailable, { 'Retry-After': '5' });
    }
  }

  /** Fails fast while Redis is down; a client still making its first connection queues the command instead. */
  private assertReachable(): void {
    if (!['ready', 'connect', 'connecting'].includes(this.redis.status))
      throw new Error(`Redis is ${this.redis.status}`);
  }
}
