import { Inject, Injectable, Logger } from '@nestjs/common';
import { clientAddressKey, GoTrueError } from '@app/core';
import { addressKey, RedisWindows, tooManyRequests, type SlidingWindow } from './redis-windows.js';
import { authConfig, type AuthConfig } from '../auth.config.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const tooMany = tooManyRequests('sign-in attempts');

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
 * reason than the credentials. While Redis is unreachable password sign-in answers 503. A password
 * change that names the current password counts the same way (PUT /auth/v1/user).
 */
@Injectable()
export class SignInLimiter {
  private readonly logger = new Logger(SignInLimiter.name);

  constructor(
    private readonly windows: RedisWindows,
    @Inject(authConfig.KEY) private readonly config: AuthConfig,
  ) {}

  /** Counts the attempt, or throws 429 (over a limit) or 503 (Redis unreachable). */
  async reserve(email: unknown, ip: string): Promise<SignInAttempt> {
    const address = clientAddressKey(ip);
    const windowMs = this.config.SIGNIN_WINDOW_SECONDS * 1000;
    return this.windows.failClosed(async () => {
      await this.windows.hit('signin', `ip:${address}`, this.config.SIGNIN_LIMIT_PER_IP, windowMs, tooMany);
      if (typeof email !== 'string') return { id: '', windows: [] };
      const account = addressKey(email);
      const knownKey = `signin:known:${account}:${address}`;
      const known = (await this.windows.redis.exists(knownKey)) === 1;
      const windows: SlidingWindow[] = [
        [`signin:failures:${account}:address:${address}`, this.config.SIGNIN_LIMIT_PER_EMAIL, windowMs],
        known
          ? [`signin:failures:${account}:known`, this.config.SIGNIN_KNOWN_FAILURES_PER_HOUR, HOUR_MS]
          : [`signin:failures:${account}:unknown`, this.config.SIGNIN_ACCOUNT_FAILURES_PER_HOUR, HOUR_MS],
      ];
      const id = await this.windows.reserve(windows, tooMany);
      return { id, windows: windows.map(([key]) => key), knownKey };
    }, 'Sign-in is briefly unavailable, retry in a few seconds');
  }

  /** The password was right: the failure counted for it is given back and the address becomes known. */
  async succeeded(attempt: SignInAttempt): Promise<void> {
    await this.settle(attempt, true);
  }

  /**
   * The attempt failed. A wrong password (or unknown e-mail) stays counted; any other failure
   * (a malformed body, a database error, an unconfirmed address) is given back.
   */
  async failed(attempt: SignInAttempt, error: unknown): Promise<void> {
    if (error instanceof GoTrueError && error.errorCode === 'invalid_credentials') return;
    await this.settle(attempt, false);
  }

  private async settle(attempt: SignInAttempt, succeeded: boolean): Promise<void> {
    if (attempt.windows.length === 0) return;
    // The answer is already decided; a Redis hiccup here costs at most one counted failure.
    try {
      await this.windows.release(attempt.windows, attempt.id);
      if (succeeded && attempt.knownKey) {
        await this.windows.redis.set(attempt.knownKey, '1', 'PX', this.config.SIGNIN_KNOWN_ADDRESS_DAYS * DAY_MS);
      }
    } catch (error) {
      this.logger.warn({ err: { message: (error as Error).message } }, 'sign-in attempt not settled');
    }
  }
}
