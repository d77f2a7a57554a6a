import { Injectable } from '@nestjs/common';
import { type Cursor, hashToken, type Permission, queryRows, RequestBinding, TenantDb } from '@app/core';
import type { MemberRow } from './member.js';

const COLUMNS =
  'id, store_id, email, user_id, permissions, status, invite_expires_at, accepted_at, created_at, updated_at';

@Injectable()
export class MemberRepository {
  constructor(
    private readonly db: TenantDb,
    private readonly binding: RequestBinding,
  ) {}

  /**
   * Creates an invitation (the answered token and the e-mailed link's, stored as hashes) through app_invite_member,
   * with a ticket over the store, the inviter, the e-mail and both hashes (the request role may neither write nor
   * read the hashes), or returns null when the store already has a member with that e-mail.
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
    const tokenHash = hashToken(token);
    const linkHash = hashToken(linkToken);
    const ticket = this.binding.ticket(
      'invite',
      `${storeId}:${invitedBy}:${email}:${tokenHash.toString('hex')}:${linkHash.toString('hex')}`,
    );
    const rows: MemberRow[] = await queryRows(
      this.db.tx,
      'SELECT * FROM app_invite_member($1, $2, $3, $4, $5, $6, $7, $8)',
      [storeId, email, permissions, tokenHash, linkHash, ttlHours, invitedBy, ticket],
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
