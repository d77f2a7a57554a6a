import { Injectable } from '@nestjs/common';
import { type Cursor, type Permission, queryRows, TenantDb } from '@app/core';
import { API_KEY_COLUMNS, type ApiKeyRow } from './api-key.js';

/** Store keys, under the caller's row-level security: only a store's owners (and the admin) see or change them. */
@Injectable()
export class ApiKeyRepository {
  constructor(private readonly db: TenantDb) {}

  async insert(
    storeId: string,
    fields: {
      name: string;
      prefix: string;
      secretHash: Buffer;
      permissions: Permission[];
      createdBy: string;
      expiresAt: Date | null;
    },
  ): Promise<ApiKeyRow> {
    const [row] = await queryRows<ApiKeyRow>(
      this.db.tx,
      `INSERT INTO store_api_keys (store_id, name, prefix, secret_hash, permissions, created_by, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${API_KEY_COLUMNS}`,
      [storeId, fields.name, fields.prefix, fields.secretHash, fields.permissions, fields.createdBy, fields.expiresAt],
    );
    return row;
  }

  /**
   * The store's live keys (not revoked, not expired), counted after locking the store's row for the
   * rest of the transaction: concurrent creations in one store count one after the other.
   */
  async lockAndCountLive(storeId: string): Promise<number> {
    await queryRows(this.db.tx, `SELECT id FROM stores WHERE id = $1 FOR NO KEY UPDATE`, [storeId]);
    const [row] = await queryRows<{ live: number }>(
      this.db.tx,
      `SELECT count(*)::int AS live FROM store_api_keys
        WHERE store_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
      [storeId],
    );
    return row.live;
  }

  async pageOfStore(storeId: string, limit: number, after: Cursor | null): Promise<ApiKeyRow[]> {
    return queryRows(
      this.db.tx,
      `SELECT ${API_KEY_COLUMNS} FROM store_api_keys
        WHERE store_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::uuid))
        ORDER BY created_at DESC, id DESC LIMIT $4`,
      [storeId, after?.createdAt ?? null, after?.id ?? null, limit + 1],
    );
  }

  /**
   * Revokes a live key the caller may manage: true when it is (now or already) revoked, false when the
   * caller sees no such key.
   */
  async revoke(keyId: string): Promise<boolean> {
    const revoked = await queryRows(
      this.db.tx,
      `UPDATE store_api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING id`,
      [keyId],
    );
    if (revoked.length > 0) return true;
    return (await queryRows(this.db.tx, `SELECT id FROM store_api_keys WHERE id = $1`, [keyId])).length > 0;
  }
}
