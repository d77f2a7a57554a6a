import { Injectable, Logger } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';

interface ThrottlerStorageRecord {
  totalHits: number;
  timeToExpire: number;
  isBlocked: boolean;
  timeToBlockExpire: number;
}
import { Redis } from 'ioredis';
import { InjectRedis } from '../redis/redis.module.js';

// Fixed window per key, counted atomically in Redis so every instance shares the same limits.
const INCREMENT = `
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
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
 * taking orders while the queue server restarts. Sign-in limits (`count`) fail closed instead.
 */
@Injectable()
export class RedisThrottlerStorage implements ThrottlerStorage {
  private readonly logger = new Logger(RedisThrottlerStorage.name);
  private unenforced = false;

  private readonly hit: (...args: (string | number)[]) => Promise<number[]>;

  constructor(@InjectRedis() private readonly redis: Redis) {
    // A named script: sent as EVALSHA (its hash, not its text) after the first call.
    redis.defineCommand('storefrontThrottleHit', { numberOfKeys: 2, lua: INCREMENT });
    const command = (redis as unknown as Record<string, (...args: (string | number)[]) => Promise<number[]>>)
      .storefrontThrottleHit;
    this.hit = command.bind(redis);
  }

  /** ThrottlerStorage: counts a hit; fails open while Redis is unreachable. */
  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    try {
      const record = await this.count(key, ttl, limit, blockDuration, throttlerName);
      if (this.unenforced) this.logger.log('Redis is back; rate limits enforced again');
      this.unenforced = false;
      return record;
    } catch (error) {
      if (!this.unenforced)
        this.logger.warn(
          { err: { message: (error as Error).message } },
          'rate limits not enforced until Redis is back',
        );
      this.unenforced = true;
      return { totalHits: 0, timeToExpire: Math.ceil(ttl / 1000), isBlocked: false, timeToBlockExpire: 0 };
    }
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
  ): Promise<ThrottlerStorageRecord> {
    // Not connected: fail now rather than wait in the reconnect queue.
    if (this.redis.status !== 'ready' && !queueWhileConnecting) throw new Error(`Redis is ${this.redis.status}`);
    const base = `throttle:${throttlerName}:${key}`;
    const [hits, ttlMs, blockedMs] = await this.hit(base, `${base}:blocked`, ttl, limit, blockDuration || ttl);
    return {
      totalHits: hits,
      timeToExpire: Math.max(0, Math.ceil(ttlMs / 1000)),
      isBlocked: blockedMs > 0,
      timeToBlockExpire: Math.max(0, Math.ceil(blockedMs / 1000)),
    };
  }
}
