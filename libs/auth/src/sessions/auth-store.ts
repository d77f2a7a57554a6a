import { Injectable } from '@nestjs/common';
import { hashToken, queryRows, RequestBinding, type Role, TenantDb } from '@app/core';
import type { SessionMeta } from './session.repository.js';

export interface NewAccount {
  email: string;
  passwordHash: string | null;
  role: Exclude<Role, 'admin'>;
  fullName: string | null;
  provider: string;
  storeId: string | null;
  /** Whether its address counts as confirmed from the start (AUTH_CONFIRM_EMAIL off). */
  confirmed: boolean;
}

/** A sign-up's account: new, or an unconfirmed one of the same address given this sign-up's password. */
export type CreatedAccount =
  { outcome: 'created' | 'unconfirmed'; userId: string } | { outcome: 'email_taken' } | { outcome: 'unknown_store' };

/** What an e-mailed token is for. */
export type TokenKind = 'signup' | 'recovery' | 'email_change' | 'magiclink';

/** The account a token was issued for, and where it goes. */
export interface IssuedToken {
  userId: string;
  /** The address the token is mailed to: the account's, or for an e-mail change the new one. */
  recipient: string;
  email: string;
  newEmail: string | null;
}

export type VerifiedToken =
  | { outcome: 'verified'; userId: string; email: string; oldEmail: string | null }
  | { outcome: 'invalid' | 'email_taken' };

export type AcceptedInvitationLink =
  { outcome: 'accepted'; userId: string; email: string; storeId: string } | { outcome: 'invalid' | 'wrong_role' };

/**
 * The outcome of presenting a refresh token: rotated into the token given; already rotated within
 * the reuse interval (`current`: the session's latest token is `hops` rotations after it, with this
 * hash); reused otherwise (the session was revoked unless it was within the interval); or unknown.
 */
export type Rotation =
  | { kind: 'rotated'; sessionId: string; userId: string }
  | { kind: 'current'; sessionId: string; userId: string; currentHash: Buffer; hops: number }
  | { kind: 'reused'; sessionId: string }
  | { kind: 'unknown' };

/**
 * Signing up, in and out through the database's narrow functions (libs/auth/src/sql/): the
 * request login has no rights on users, sessions or refresh tokens of its own. Where a function
 * crosses users, the API passes a ticket it makes only after checking the password or Google's answer.
 * Runs in the caller's transaction (an anonymous one for sign-up and sign-in, the user's for logout).
 */
@Injectable()
export class AuthStore {
  constructor(
    private readonly db: TenantDb,
    private readonly binding: RequestBinding,
  ) {}

  async createAccount(account: NewAccount): Promise<CreatedAccount> {
    const [row] = await queryRows<{ outcome: CreatedAccount['outcome']; user_id: string | null }>(
      this.db.tx,
      'SELECT * FROM auth_create_user($1, $2, $3, $4, $5, $6, $7, $8)',
      [
        account.email,
        account.passwordHash,
        account.role,
        account.fullName,
        account.provider,
        account.storeId,
        account.confirmed,
        this.binding.ticket('create-user', account.email.toLowerCase()),
      ],
    );
    if (row.outcome === 'created' || row.outcome === 'unconfirmed')
      return { outcome: row.outcome, userId: row.user_id! };
    return { outcome: row.outcome };
  }

  /** The account's id and password hash, to check a password against; null when no account has the address. */
  async passwordCandidate(
    email: string,
  ): Promise<{ userId: string; passwordHash: string | null; emailConfirmed: boolean } | null> {
    const [row] = await queryRows<{ user_id: string; password_hash: string | null; email_confirmed: boolean }>(
      this.db.tx,
      'SELECT * FROM auth_password_candidate($1, $2)',
      [email, this.binding.ticket('sign-in', email.toLowerCase())],
    );
    return row ? { userId: row.user_id, passwordHash: row.password_hash, emailConfirmed: row.email_confirmed } : null;
  }

  /** A new token of `kind` for the account of `email`, replacing its live one; null when there is no such account. */
  async issueToken(
    email: string,
    kind: TokenKind,
    tokenHash: Buffer,
    codeHash: Buffer,
    ttlSeconds: number,
  ): Promise<IssuedToken | null> {
    const [row] = await queryRows<{ user_id: string; recipient: string; email: string; new_email: string | null }>(
      this.db.tx,
      'SELECT * FROM auth_issue_token($1, $2, $3, $4, $5, $6)',
      [
        email,
        kind,
        tokenHash,
        codeHash,
        ttlSeconds,
        this.binding.ticket('issue-token', `${email.toLowerCase()}:${kind}`),
      ],
    );
    return row ? { userId: row.user_id, recipient: row.recipient, email: row.email, newEmail: row.new_email } : null;
  }

  /**
   * A magic link and code for the account of `email`, replacing its live one: a confirmed account's,
   * or any account's with `anyAccount` (POST /otp has just made or reset it); null when there is none.
   */
  async issueMagicLink(
    email: string,
    tokenHash: Buffer,
    codeHash: Buffer,
    ttlSeconds: number,
    anyAccount: boolean,
  ): Promise<IssuedToken | null> {
    const ticket = this.binding.ticket('issue-token', `${email.toLowerCase()}:magiclink`);
    const [row] = await queryRows<{ user_id: string; email: string }>(
      this.db.tx,
      'SELECT * FROM auth_issue_magic_link($1, $2, $3, $4, $5, $6)',
      [email, tokenHash, codeHash, ttlSeconds, anyAccount, ticket],
    );
    return row ? { userId: row.user_id, recipient: row.email, email: row.email, newEmail: null } : null;
  }

  /** Uses a token once: by a link's token, or by the address it went to and its code. */
  async verifyToken(
    kind: TokenKind,
    proof: { tokenHash: Buffer } | { email: string; codeHash: Buffer },
  ): Promise<VerifiedToken> {
    const byCode = 'codeHash' in proof;
    const [row] = await queryRows<{
      outcome: VerifiedToken['outcome'];
      user_id: string;
      email: string;
      old_email: string | null;
    }>(this.db.tx, 'SELECT * FROM auth_verify_token($1, $2, $3, $4, $5)', [
      kind,
      byCode ? null : proof.tokenHash,
      byCode ? proof.email : null,
      byCode ? proof.codeHash : null,
      byCode ? this.binding.ticket('verify-code', `${proof.email.toLowerCase()}:${kind}`) : null,
    ]);
    return row.outcome === 'verified'
      ? { outcome: 'verified', userId: row.user_id, email: row.email, oldEmail: row.old_email }
      : { outcome: row.outcome };
  }

  /** Accepts the invitation an e-mailed link names, for the invited address's account (made when there is none). */
  async acceptInvitationLink(linkHash: Buffer): Promise<AcceptedInvitationLink> {
    const [row] = await queryRows<{
      outcome: AcceptedInvitationLink['outcome'];
      user_id: string;
      email: string;
      store_id: string;
    }>(this.db.tx, 'SELECT * FROM auth_accept_invitation_link($1)', [linkHash]);
    return row.outcome === 'accepted'
      ? { outcome: 'accepted', userId: row.user_id, email: row.email, storeId: row.store_id }
      : { outcome: row.outcome };
  }

  /**
   * As the bound user: its new password; its other sessions end. `recentSeconds` null says the API
   * checked the current password; otherwise the session must have signed in that recently.
   */
  async setPassword(
    userId: string,
    passwordHash: string,
    recentSeconds: number | null,
  ): Promise<'changed' | 'reauthentication_needed'> {
    const [row] = await queryRows<{ outcome: 'changed' | 'reauthentication_needed' }>(
      this.db.tx,
      'SELECT * FROM auth_set_password($1, $2, $3)',
      [passwordHash, recentSeconds, this.binding.ticket('set-password', userId)],
    );
    return row.outcome;
  }

  /** As the bound user: `newEmail` pending, with a token to send to it. */
  async requestEmailChange(
    userId: string,
    newEmail: string,
    tokenHash: Buffer,
    codeHash: Buffer,
    ttlSeconds: number,
  ): Promise<'requested' | 'email_taken'> {
    const [row] = await queryRows<{ outcome: 'requested' | 'email_taken' }>(
      this.db.tx,
      'SELECT * FROM auth_request_email_change($1, $2, $3, $4, $5)',
      [
        newEmail,
        tokenHash,
        codeHash,
        ttlSeconds,
        this.binding.ticket('email-change', `${userId}:${newEmail.toLowerCase()}`),
      ],
    );
    return row.outcome;
  }

  /** As the bound user, without confirmation: its address becomes `newEmail` now; returns the old one. */
  async changeEmail(
    userId: string,
    newEmail: string,
  ): Promise<{ outcome: 'changed'; oldEmail: string } | { outcome: 'email_taken' }> {
    const [row] = await queryRows<{ outcome: 'changed' | 'email_taken'; old_email: string }>(
      this.db.tx,
      'SELECT * FROM auth_change_email($1, $2)',
      [newEmail, this.binding.ticket('email-change-now', `${userId}:${newEmail.toLowerCase()}`)],
    );
    return row.outcome === 'changed' ? { outcome: 'changed', oldEmail: row.old_email } : { outcome: 'email_taken' };
  }

  /** Opens a session with its first refresh token for a user the caller has just proven; returns its id. */
  async openSession(userId: string, refreshToken: string, meta: SessionMeta): Promise<string> {
    const [row] = await queryRows<{ session_id: string }>(
      this.db.tx,
      'SELECT auth_open_session($1, $2, $3, $4, $5) AS session_id',
      [
        userId,
        hashToken(refreshToken),
        meta.userAgent ?? null,
        meta.ip ?? null,
        this.binding.ticket('open-session', userId),
      ],
    );
    return row.session_id;
  }

  /**
   * Spends a refresh token for `next`. A token already spent within `reuseSeconds` of its rotation
   * points at its session's current token instead; spent earlier, it revokes its session.
   */
  async rotate(refreshToken: string, next: string, reuseSeconds: number): Promise<Rotation> {
    const parameters = [hashToken(refreshToken), hashToken(next), reuseSeconds];
    const [row] = await queryRows<{
      outcome: Rotation['kind'];
      session_id: string | null;
      user_id: string | null;
      current_hash: Buffer | null;
      hops: number | null;
    }>(this.db.tx, 'SELECT * FROM auth_rotate_refresh_token($1, $2, $3)', parameters);
    if (row.outcome === 'rotated') return { kind: 'rotated', sessionId: row.session_id!, userId: row.user_id! };
    if (row.outcome === 'current') {
      const [sessionId, userId] = [row.session_id!, row.user_id!];
      return { kind: 'current', sessionId, userId, currentHash: row.current_hash!, hops: row.hops! };
    }
    if (row.outcome === 'reused') return { kind: 'reused', sessionId: row.session_id! };
    return { kind: 'unknown' };
  }

  /** Ends the bound session's user's sessions: this one, all, or all others. */
  async endSessions(scope: 'local' | 'global' | 'others'): Promise<void> {
    await queryRows(this.db.tx, 'SELECT auth_end_sessions($1)', [scope]);
  }

  /** The account of an address Google vouched for (made a merchant when new). */
  async googleAccount(email: string, fullName: string | null): Promise<string> {
    const [row] = await queryRows<{ user_id: string }>(
      this.db.tx,
      'SELECT auth_google_account($1, $2, $3) AS user_id',
      [email, fullName, this.binding.ticket('google', email.toLowerCase())],
    );
    return row.user_id;
  }
}
