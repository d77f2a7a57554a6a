import { Inject, Injectable, Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { ApiError, BoundedCache, clientAddressKey, InjectRedis } from '@app/core';
import { authConfig, type AuthConfig } from '../auth.config.js';

const WINDOW_MS = 60_000;
// Counts a failure in the address's fixed window (the first one starts it). KEYS: the counter; ARGV: the window.
const RECORD = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count
`;

/**
 * Failed store-key lookups per client address (STORE_KEY_FAILURES_PER_MINUTE, a fixed window of a
 * minute in Redis, shared by every instance). An address over it is refused before the lookup, so
 * guessing keys costs no database round trip. A valid key pays nothing: Redis is only read for an
 * address this process saw fail within the window (any instance's count then applies); an address
 * whose failures were all seen by other instances gets at most one more lookup here before it is.
 */
@Injectable()
export class StoreKeyFailures {
  private readonly logger = new Logger(StoreKeyFailures.name);
  /** Addresses that failed here, with when their window ends at the latest. */
  private readonly suspects = new BoundedCache<string, number>(10_000);

  constructor(
    @InjectRedis() private readonly redis: Redis,
    @Inject(authConfig.KEY) private readonly config: AuthConfig,
  ) {}

  /** Throws 429 when the address is over its failures; never waits on Redis for an address with none seen. */
  async refuseIfOver(ip: string): Promise<void> {
    const address = clientAddressKey(ip);
    const until = this.suspects.get(address);
    if (until === undefined || until <= Date.now()) return;
    let count: number;
    let ttl: number;
    try {
      const replies = await this.redis.multi().get(this.key(address)).pttl(this.key(address)).exec();
      count = Number(replies?.[0]?.[1] ?? 0);
      ttl = Number(replies?.[1]?.[1] ?? -1);
    } catch (error) {
      this.logger.warn({ err: { message: (error as Error).message } }, 'store-key failures could not be read');
      return;
    }
    const limit = this.config.STORE_KEY_FAILURES_PER_MINUTE;
    if (count >= limit) throw ApiError.rateLimited(limit, WINDOW_MS / 1000, Math.max(1, ttl) / 1000);
  }

  /** Counts a failed lookup of the address (not awaited by the caller's answer longer than Redis takes). */
  async record(ip: string): Promise<void> {
    const address = clientAddressKey(ip);
    this.suspects.set(address, Date.now() + WINDOW_MS);
    try {
      await this.redis.eval(RECORD, 1, this.key(address), WINDOW_MS);
    } catch (error) {
      this.logger.warn({ err: { message: (error as Error).message } }, 'a store-key failure could not be counted');
    }
  }

  private key(address: string): string {
    return `store-key-failures:${address}`;
  }
}
