import { Inject, Injectable } from '@nestjs/common';
import { clientAddressKey } from '@app/core';
import { addressKey, RedisWindows, tooManyRequests } from './redis-windows.js';
import { authConfig, type AuthConfig } from '../auth.config.js';

const HOUR_MS = 3_600_000;
const tooManyEmails = tooManyRequests('e-mails', 'over_email_send_rate_limit');
const tooManyVerifications = tooManyRequests('verification attempts');

/** A code checked against an address, counted as a failure until it proves right. */
export interface CodeAttempt {
  key: string;
  id: string;
}

/**
 * Limits of the account routes, so that they can neither flood an inbox nor guess a code: every
 * request that sends an account e-mail counts per client address (AUTH_MAIL_LIMIT_PER_IP) and per
 * address mailed (AUTH_MAIL_LIMIT_PER_EMAIL), whether or not an account has that address (so the
 * answer says nothing about it); verifications count per client address (AUTH_VERIFY_LIMIT_PER_IP),
 * and wrong codes per address, from everywhere together (AUTH_VERIFY_FAILURES_PER_EMAIL an hour).
 * Over a limit: 429 with Retry-After; while Redis is unreachable: 503.
 */
@Injectable()
export class AccountLimits {
  constructor(
    private readonly windows: RedisWindows,
    @Inject(authConfig.KEY) private readonly config: AuthConfig,
  ) {}

  private get mailWindowMs(): number {
    return this.config.AUTH_MAIL_WINDOW_SECONDS * 1000;
  }

  /** A request from `ip` that e-mails `email`. */
  async mailing(ip: string, email: string): Promise<void> {
    await this.windows.hit(
      'account-mail',
      `ip:${clientAddressKey(ip)}`,
      this.config.AUTH_MAIL_LIMIT_PER_IP,
      this.mailWindowMs,
      tooManyEmails,
    );
    await this.mailingAddress(email);
  }

  /** An e-mail to `email` (a sign-up's confirmation, counted beside the sign-up limit per client address). */
  mailingAddress(email: string): Promise<void> {
    return this.windows.hit(
      'account-mail',
      `to:${addressKey(email)}`,
      this.config.AUTH_MAIL_LIMIT_PER_EMAIL,
      this.mailWindowMs,
      tooManyEmails,
    );
  }

  /** A verification from `ip`, right or wrong. */
  verifying(ip: string): Promise<void> {
    const windowMs = this.config.AUTH_VERIFY_WINDOW_SECONDS * 1000;
    return this.windows.hit(
      'verify',
      `ip:${clientAddressKey(ip)}`,
      this.config.AUTH_VERIFY_LIMIT_PER_IP,
      windowMs,
      tooManyVerifications,
    );
  }

  /** A code for `email`, counted as wrong before it is checked (so parallel guesses cannot pass the limit together). */
  async codeAttempt(email: string): Promise<CodeAttempt> {
    const key = `verify:failures:${addressKey(email)}`;
    const id = await this.windows.reserve(
      [[key, this.config.AUTH_VERIFY_FAILURES_PER_EMAIL, HOUR_MS]],
      tooManyVerifications,
    );
    return { key, id };
  }

  /** The code was right: it does not count against the address. */
  async codeRight(attempt: CodeAttempt): Promise<void> {
    await this.windows.release([attempt.key], attempt.id).catch(() => undefined);
  }
}
