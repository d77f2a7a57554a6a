import { Injectable } from '@nestjs/common';
import { queryRows, SystemDb } from '@app/core';

export interface SessionMeta {
  userAgent?: string;
  ip?: string;
}

/** The outcome of presenting a refresh token. */
export type RotationResult =
  | { kind: 'rotated'; sessionId: string; userId: string; tokenId: string }
  | { kind: 'reused'; sessionId: string }
  | { kind: 'unknown' };

@Injectable()
export class SessionRepository {
  constructor(private readonly system: SystemDb) {}

  /**
   * Marks a refresh token used, atomically: of two concurrent presentations exactly one rotates.
   * A token already used, or whose session was revoked for reuse, reports `reused`.
   */

  /** Revokes the user's sessions: all of them, or all but `exceptSessionId`. */
  async revokeAllOf(userId: string, exceptSessionId?: string): Promise<void> {
    await queryRows(
      this.system.tx,
      'UPDATE auth_sessions SET revoked_at = now() WHERE user_id ' +
        '= $1 AND revoked_at IS NULL AND id IS DISTINCT FROM $2',
      [userId, exceptSessionId ?? null],
    );
  }
}
