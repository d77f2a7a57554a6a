import { createHash, randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { AppConfig, clientAddressKey, GoTrueError, InjectRedis, RedisThrottlerStorage } from '@app/core';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

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

/** A password attempt counted before the password is checked; settled once the answer is known. */
export interface SignInAttempt {
  id: string;
  /** The failure windows it was counted in; empty when the body names no e-mail. */
  windows: string[];
  knownKey?: string;
}

/**
 * Password sign-in limits, counted in Redis across instances:
 *
 * - per client address: attempts per SIGNIN_WINDOW_SECONDS (SIGNIN_LIMIT_PER_IP), successes included;
 * - per account and client address: failures per SIGNIN_WINDOW_SECONDS (SIGNIN_LIMIT_PER_EMAIL);
 * - per account: failures per hour from addresses it has not signed in from
 *   (SIGNIN_ACCOUNT_FAILURES_PER_HOUR), and, separately, from its known addresses together
 *   (SIGNIN_KNOWN_FAILURES_PER_HOUR). An address is known for SIGNIN_KNOWN_ADDRESS_DAYS after a
 *   successful sign-in from it.
 *
 * Someone guessing from many addresses exhausts the unknown-address budget only: the owner still
 * signs in from an address they used before, and the account sees a bounded number of guesses per
 * hour whatever the number of addresses. A failure is counted before the password is checked (so
 * parallel attempts cannot overshoot) and given back when the attempt succeeds or fails for another
 * reason than the credentials. While Redis is unreachable password sign-in answers 503.
 */
@Injectable()
export class SignInLimiter {
  private readonly logger = new Logger(SignInLimiter.name);

  constructor(
    private readonly storage: RedisThrottlerStorage,
    @InjectRedis() private readonly redis: Redis,
    private readonly config: AppConfig,
  ) {}

  /** Counts the attempt, or throws 429 (over a limit) or 503 (Redis unreachable). */
  async reserve(email: unknown, ip: string): Promise<SignInAttempt> {
    const address = clientAddressKey(ip);
    const windowMs = this.config.SIGNIN_WINDOW_SECONDS * 1000;
    try {
      this.assertReachable();
      const perAddress = await this.storage.count(`ip:${address}`, windowMs, this.config.SIGNIN_LIMIT_PER_IP, windowMs, 'signin', true);
      if (perAddress.isBlocked) throw tooMany(perAddress.timeToBlockExpire * 1000);
      const attempt: SignInAttempt = { id: randomUUID(), windows: [] };
      if (typeof email !== 'string') return attempt;
      // Hashed: bounded key length whatever was sent, and no e-mail addresses in Redis.
      const account = createHash('sha256').update(email.trim().toLowerCase()).digest('base64url');
      attempt.knownKey = `signin:known:${account}:${address}`;
      const known = (await this.redis.exists(attempt.knownKey)) === 1;
      const windows: [string, number, number][] = [
        [`signin:failures:${account}:address:${address}`, this.config.SIGNIN_LIMIT_PER_EMAIL, windowMs],
        known
          ? [`signin:failures:${account}:known`, this.config.SIGNIN_KNOWN_FAILURES_PER_HOUR, HOUR_MS]
          : [`signin:failures:${account}:unknown`, this.config.SIGNIN_ACCOUNT_FAILURES_PER_HOUR, HOUR_MS],
      ];
      const waitMs = (await this.redis.eval(
        RESERVE,
        windows.length,
        ...windows.map(([key]) => key),
        Date.now(),
        attempt.id,
        ...windows.flatMap(([, limit, length]) => [limit, length]),
      )) as number;
      if (waitMs > 0) throw tooMany(waitMs);
      attempt.windows = windows.map(([key]) => key);
      return attempt;
    } catch (error) {
      if (error instanceof GoTrueError) throw error;
      // Uncounted attempts would lift the guessing limit: no password sign-in until Redis is back.
      throw new GoTrueError(503, 'service_unavailable', 'Sign-in is briefly unavailable, retry in a few seconds', { 'Retry-After': '5' });
    }
  }

  /** The password was right: the failure counted for it is given back and the address becomes known. */
  async succeeded(attempt: SignInAttempt): Promise<void> {
    await this.settle(attempt, true);
  }

  /**
   * The attempt failed. A wrong password (or unknown e-mail) stays counted; any other failure
   * (a malformed body, a database error) checked no password and is given back.
   */
  async failed(attempt: SignInAttempt, error: unknown): Promise<void> {
    if (error instanceof GoTrueError && error.errorCode === 'invalid_credentials') return;
    await this.settle(attempt, false);
  }

  private async settle(attempt: SignInAttempt, succeeded: boolean): Promise<void> {
    if (attempt.windows.length === 0) return;
    const batch = this.redis.multi();
    for (const key of attempt.windows) batch.zrem(key, attempt.id);
    if (succeeded && attempt.knownKey) batch.set(attempt.knownKey, '1', 'PX', this.config.SIGNIN_KNOWN_ADDRESS_DAYS * DAY_MS);
    // The answer is already decided; a Redis hiccup here costs at most one counted failure.
    await batch.exec().catch((error: Error) => this.logger.warn({ err: { message: error.message } }, 'sign-in attempt not settled'));
  }

  /** Fails fast while Redis is down; a client still making its first connection queues the command instead. */
  private assertReachable(): void {
    if (!['ready', 'connect', 'connecting'].includes(this.redis.status)) throw new Error(`Redis is ${this.redis.status}`);
  }
}

function tooMany(waitMs: number): GoTrueError {
  const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
  return new GoTrueError(429, 'over_request_rate_limit', `Too many sign-in attempts, retry in ${retryAfter} seconds`, {
    'Retry-After': String(retryAfter),
  });
}
