import { Injectable } from '@nestjs/common';
import { type Cursor, hashToken, type Permission, queryRows, TenantDb } from '@app/core';
import type { MemberRow } from './member.js';

const COLUMNS =
  'id, store_id, email, user_id, permissions, status, invite_expires_at, accepted_at, created_at, updated_at';

@Injectable()
export class MemberRepository {
  constructor(private readonly db: TenantDb) {}

  /**
   * Creates an invitation (the answered token and the e-mailed link's, stored as hashes), or returns null when the
   * store already has a member with that e-mail.
   */
  async invite(
    storeId: string,
    email: string,
    permissions: Permission[],
    token: string,
    linkToken: string,
    ttlHours: number,
    invitedBy: string,
  ): Promise<MemberRow | null> {
    const rows: MemberRow[] = await queryRows(
      this.db.tx,
      `INSERT INTO store_members (store_id, email, permissions, invite_token_hash, invite_link_hash, invite_expires_at,
        invited_by)
       VALUES ($1, $2, $3, $4, $5, now() + make_interval(hours => $6), $7)
       ON CONFLICT (store_id, lower(email)) DO NOTHING
       RETURNING ${COLUMNS}`,
      [storeId, email, permissions, hashToken(token), hashToken(linkToken), ttlHours, invitedBy],
    );
    return rows[0] ?? null;
  }

  async pageOfStore(storeId: string, limit: number, after: Cursor | null): Promise<MemberRow[]> {
    return queryRows(
      this.db.tx,
      `SELECT ${COLUMNS} FROM store_members
        WHERE store_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::uuid))
        ORDER BY created_at DESC, id DESC LIMIT $4`,
      [storeId, after?.createdAt ?? null, after?.id ?? null, limit + 1],
    );
  }

  async updatePermissions(storeId: string, memberId: string, permissions: Permission[]): Promise<MemberRow | null> {
    const rows: MemberRow[] = await queryRows(
      this.db.tx,
      `UPDATE store_members SET permissions = $3, updated_at = ` +
        `now() WHERE store_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
      [storeId, memberId, permissions],
    );
    return rows[0] ?? null;
  }

  async remove(storeId: string, memberId: string): Promise<boolean> {
    const rows = await queryRows(this.db.tx, 'DELETE FROM store_members WHERE store_id = $1 AND id = $2 RETURNING id', [
      storeId,
      memberId,
    ]);
    return rows.length > 0;
  }

  /**
   * Binds a pending, unexpired invitation made for the signed-in (new) user's e-mail to it, through
   * app_accept_invitation (the invitee cannot read the store's members); null when the token does not fit.
   */
  async accept(token: string): Promise<{ store_id: string; id: string } | null> {
    const rows = await queryRows<{ store_id: string; member_id: string }>(
      this.db.tx,
      'SELECT * FROM app_accept_invitation($1)',
      [hashToken(token)],
    );
    return rows[0] ? { store_id: rows[0].store_id, id: rows[0].member_id } : null;
  }
}
