import { randomInt } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { hashToken, httpConfig, randomToken, type HttpConfig } from '@app/core';
import { MailOutbox, type MailTemplate } from '@app/mail';
import { FlowStates } from '../pkce/flow-states.js';
import type { PkceChallenge } from '../pkce/pkce.dto.js';
import { AuthStore, type TokenKind } from '../sessions/auth-store.js';
import { authConfig, type AuthConfig } from '../auth.config.js';

/** The verification types of /auth/v1/verify that e-mails link to. */
export type VerifyType = TokenKind | 'invite';

const TEMPLATES: Record<TokenKind, MailTemplate> = {
  signup: 'confirm_signup',
  recovery: 'reset_password',
  email_change: 'confirm_email_change',
  magiclink: 'magic_link',
};

/** The link of an e-mail: GET /auth/v1/verify with the token, which signs the browser in at `redirectTo`. */
export function verifyLink(baseUrl: string, type: VerifyType, token: string, redirectTo: string): string {
  return `${baseUrl}/auth/v1/verify?${new URLSearchParams({ token, type, redirect_to: redirectTo })}`;
}

/** A link's token (256 bits) and the 6-digit code mailed beside it; stored only as their SHA-256. */
export function newCredentials(): { token: string; code: string; tokenHash: Buffer; codeHash: Buffer } {
  const token = randomToken(32);
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  return { token, code, tokenHash: hashToken(token), codeHash: hashCode(code) };
}

export const hashCode = (code: string): Buffer => hashToken(`code:${code}`);

/** Where an e-mail's link leads; with `pkce`, back with an auth code instead of a session. */
export interface LinkTarget {
  redirectTo: string;
  pkce?: PkceChallenge;
}

/**
 * The account e-mails: a one-time token (link and code) issued and its message written to the mail
 * outbox in the caller's transaction, so the token exists exactly when its e-mail will go out.
 */
@Injectable()
export class AccountMail {
  constructor(
    private readonly store: AuthStore,
    private readonly mail: MailOutbox,
    private readonly flows: FlowStates,
    @Inject(authConfig.KEY) private readonly config: AuthConfig,
    @Inject(httpConfig.KEY) private readonly http: HttpConfig,
  ) {}

  private link(type: VerifyType, token: string, redirectTo: string): string {
    return verifyLink(this.http.baseUrl, type, token, redirectTo);
  }

  /**
   * Issues a token of `kind` for the account of `email` and mails it; false (and nothing sent) when
   * there is no such account. With `target.pkce` the link returns an auth code instead of a session.
   * `anyAccount`: a magic link also for an unconfirmed account (one POST /otp has just made or reset).
   */
  async issue(kind: TokenKind, email: string, target: LinkTarget, anyAccount = false): Promise<boolean> {
    const credentials = newCredentials();
    const { tokenHash, codeHash } = credentials;
    const ttl = this.config.AUTH_OTP_TTL;
    const issued =
      kind === 'magiclink'
        ? await this.store.issueMagicLink(email, tokenHash, codeHash, ttl, anyAccount)
        : await this.store.issueToken(email, kind, tokenHash, codeHash, ttl);
    if (!issued) return false;
    if (target.pkce) await this.flows.awaitLink(tokenHash, kind, target.pkce, ttl);
    await this.mail.enqueue({
      template: TEMPLATES[kind],
      to: issued.recipient,
      userId: issued.userId,
      data: { email: issued.email, new_email: issued.newEmail, expires_minutes: Math.round(ttl / 60) },
      secret: { action_url: this.link(kind, credentials.token, target.redirectTo), code: credentials.code },
    });
    return true;
  }

  /**
   * As the bound user: `newEmail` pending, its confirmation mailed to it (its link returning an auth code
   * with `pkce`); false when another account has it.
   */
  async requestEmailChange(userId: string, email: string, newEmail: string, target: LinkTarget): Promise<boolean> {
    const credentials = newCredentials();
    const { tokenHash, codeHash } = credentials;
    const ttl = this.config.AUTH_OTP_TTL;
    const outcome = await this.store.requestEmailChange(userId, newEmail, tokenHash, codeHash, ttl);
    if (outcome === 'email_taken') return false;
    if (target.pkce) await this.flows.awaitLink(tokenHash, 'email_change', target.pkce, ttl);
    await this.mail.enqueue({
      template: 'confirm_email_change',
      to: newEmail,
      userId,
      data: { email, new_email: newEmail, expires_minutes: Math.round(ttl / 60) },
      secret: { action_url: this.link('email_change', credentials.token, target.redirectTo), code: credentials.code },
    });
    return true;
  }

  /** Tells the old address that the account's address changed. */
  async emailChanged(userId: string, oldEmail: string, newEmail: string): Promise<void> {
    await this.mail.enqueue({
      template: 'email_changed',
      to: oldEmail,
      userId,
      data: { old_email: oldEmail, new_email: newEmail },
    });
  }
}
