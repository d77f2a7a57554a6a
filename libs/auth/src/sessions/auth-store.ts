import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Databases, hashToken, queryRows, type Role } from '@app/core';
import type { SessionMeta } from './session.repository.js';

export interface NewAccount {
  email: string;
  passwordHash: string | null;
  role: Exclude<Role, 'admin'>;
  fullName: string | null;
  provider: string;
  storeId: string | null;
}

/** The outcome of presenting a refresh token. */
export type Rotation = { kind: 'rotated'; sessionId: string; userId: string } | { kind: 'reused'; sessionId: string } | { kind: 'unknown' };

/**
 * Signing up, in and out through the database's narrow functions (migration 1763801200000): the
 * request login has no rights on users, sessions or refresh tokens of its own. Where a function
 * crosses users, the API passes a ticket it makes only after checking the password or Google's answer.
 * Runs in the caller's transaction (an anonymous one for sign-up and sign-in, the user's for logout).
 */
@Injectable()
export class AuthStore {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly databases: Databases,
  ) {}

  async createAccount(account: NewAccount): Promise<string | 'email_taken' | 'unknown_store'> {
    const [row] = await queryRows<{ outcome: 'created' | 'email_taken' | 'unknown_store'; user_id: string | null }>(
      this.txHost.tx,
      'SELECT * FROM auth_create_user($1, $2, $3, $4, $5, $6, $7)',
      [
        account.email,
        account.passwordHash,
        account.role,
        account.fullName,
        account.provider,
        account.storeId,
        this.databases.ticket('create-user', account.email.toLowerCase()),
      ],
    );
    return row.outcome === 'created' ? row.user_id! : row.outcome;
  }

  /** The account's id and password hash, to check a password against; null when no account has the address. */
  async passwordCandidate(email: string): Promise<{ userId: string; passwordHash: string | null } | null> {
    const [row] = await queryRows<{ user_id: string; password_hash: string | null }>(
      this.txHost.tx,
      'SELECT * FROM auth_password_candidate($1, $2)',
      [email, this.databases.ticket('sign-in', email.toLowerCase())],
    );
    return row ? { userId: row.user_id, passwordHash: row.password_hash } : null;
  }

  /** Opens a session with its first refresh token for a user the caller has just proven; answers its id. */
  async openSession(userId: string, refreshToken: string, meta: SessionMeta): Promise<string> {
    const [row] = await queryRows<{ session_id: string }>(this.txHost.tx, 'SELECT auth_open_session($1, $2, $3, $4, $5) AS session_id', [
      userId,
      hashToken(refreshToken),
      meta.userAgent ?? null,
      meta.ip ?? null,
      this.databases.ticket('open-session', userId),
    ]);
    return row.session_id;
  }

  /** Spends a refresh token for a new one; a token already spent revokes its session. */
  async rotate(refreshToken: string, next: string): Promise<Rotation> {
    const [row] = await queryRows<{ outcome: Rotation['kind']; session_id: string | null; user_id: string | null }>(
      this.txHost.tx,
      'SELECT * FROM auth_rotate_refresh_token($1, $2)',
      [hashToken(refreshToken), hashToken(next)],
    );
    if (row.outcome === 'rotated') return { kind: 'rotated', sessionId: row.session_id!, userId: row.user_id! };
    if (row.outcome === 'reused') return { kind: 'reused', sessionId: row.session_id! };
    return { kind: 'unknown' };
  }

  /** Ends the bound session's user's sessions: this one, all, or all others. */
  async endSessions(scope: 'local' | 'global' | 'others'): Promise<void> {
    await queryRows(this.txHost.tx, 'SELECT auth_end_sessions($1)', [scope]);
  }

  /** The account of an address Google vouched for (made a merchant when new). */
  async googleAccount(email: string, fullName: string | null): Promise<string> {
    const [row] = await queryRows<{ user_id: string }>(this.txHost.tx, 'SELECT auth_google_account($1, $2, $3) AS user_id', [
      email,
      fullName,
      this.databases.ticket('google', email.toLowerCase()),
    ]);
    return row.user_id;
  }
}
