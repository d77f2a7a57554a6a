import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { hashToken, queryRows } from '@app/core';

export interface SessionMeta {
  userAgent?: string;
  ip?: string;
}

/** The outcome of presenting a refresh token. */
export type RotationResult =
  { kind: 'rotated'; sessionId: string; userId: string; tokenId: string } | { kind: 'reused'; sessionId: string } | { kind: 'unknown' };

@Injectable()
export class SessionRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  async create(userId: string, meta: SessionMeta): Promise<string> {
    const rows: { id: string }[] = await queryRows(
      this.txHost.tx,
      'INSERT INTO auth_sessions (user_id, user_agent, ip) VALUES ($1, $2, $3) RETURNING id',
      [userId, meta.userAgent?.slice(0, 512) ?? null, meta.ip ?? null],
    );
    return rows[0].id;
  }

  async addRefreshToken(sessionId: string, token: string, parentId: string | null): Promise<void> {
    await queryRows(this.txHost.tx, 'INSERT INTO auth_refresh_tokens (session_id, token_hash, parent_id) VALUES ($1, $2, $3)', [
      sessionId,
      hashToken(token),
      parentId,
    ]);
  }

  /**
   * Marks a refresh token used, atomically: of two concurrent presentations exactly one rotates.
   * A token already used, or whose session was revoked for reuse, reports `reused`.
   */
  async consumeRefreshToken(token: string): Promise<RotationResult> {
    const hash = hashToken(token);
    const rotated: { id: string; session_id: string; user_id: string }[] = await queryRows(
      this.txHost.tx,
      `UPDATE auth_refresh_tokens t SET used_at = now()
         FROM auth_sessions s
        WHERE t.token_hash = $1 AND t.used_at IS NULL AND s.id = t.session_id AND s.revoked_at IS NULL
        RETURNING t.id, t.session_id, s.user_id`,
      [hash],
    );
    if (rotated[0]) return { kind: 'rotated', tokenId: rotated[0].id, sessionId: rotated[0].session_id, userId: rotated[0].user_id };
    const known: { session_id: string; used_at: Date | null }[] = await queryRows(
      this.txHost.tx,
      'SELECT session_id, used_at FROM auth_refresh_tokens WHERE token_hash = $1',
      [hash],
    );
    if (known[0]?.used_at) return { kind: 'reused', sessionId: known[0].session_id };
    return { kind: 'unknown' };
  }

  async markRefreshed(sessionId: string): Promise<void> {
    await queryRows(this.txHost.tx, 'UPDATE auth_sessions SET refreshed_at = now() WHERE id = $1', [sessionId]);
  }

  async revoke(sessionId: string): Promise<void> {
    await queryRows(this.txHost.tx, 'UPDATE auth_sessions SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL', [sessionId]);
  }

  /** Revokes the user's sessions: all of them, or all but `exceptSessionId`. */
  async revokeAllOf(userId: string, exceptSessionId?: string): Promise<void> {
    await queryRows(
      this.txHost.tx,
      'UPDATE auth_sessions SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL AND id IS DISTINCT FROM $2',
      [userId, exceptSessionId ?? null],
    );
  }

  async isActive(sessionId: string, userId: string): Promise<boolean> {
    const rows = await queryRows(this.txHost.tx, 'SELECT 1 FROM auth_sessions WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL', [
      sessionId,
      userId,
    ]);
    return rows.length > 0;
  }
}
