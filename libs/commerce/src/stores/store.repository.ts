import { Injectable } from '@nestjs/common';
import { type Cursor, queryRows, TenantDb } from '@app/core';
import type { StoreRow } from './store.js';

export interface StoreFields {
  name?: string;
  currency?: string;
  default_language?: string;
  timezone?: string;
}

/** Stores, read and written in the request's transaction: row-level security decides what is visible. */
@Injectable()
export class StoreRepository {
  constructor(private readonly db: TenantDb) {}

  async insert(ownerId: string, fields: StoreFields): Promise<StoreRow> {
    const rows: StoreRow[] = await queryRows(
      this.db.tx,
      `INSERT INTO stores (owner_id, name, currency, default_language, timezone)
       VALUES ($1, $2, coalesce($3, 'USD'), coalesce($4, 'en'), coalesce($5, 'UTC')) RETURNING *`,
      [ownerId, fields.name, fields.currency ?? null, fields.default_language ?? null, fields.timezone ?? null],
    );
    return rows[0];
  }

  async findVisible(id: string): Promise<StoreRow | null> {
    const rows: StoreRow[] = await queryRows(this.db.tx, 'SELECT * FROM stores WHERE id = $1', [id]);
    return rows[0] ?? null;
  }

  /** Newest first; `limit + 1` rows so the caller can tell whether another page follows. */
  async pageVisible(limit: number, after: Cursor | null): Promise<StoreRow[]> {
    return queryRows(
      this.db.tx,
      `SELECT * FROM stores
        WHERE $1::timestamptz IS NULL OR (created_at, id) < ($1::timestamptz, $2::uuid)
        ORDER BY created_at DESC, id DESC
        LIMIT $3`,
      [after?.createdAt ?? null, after?.id ?? null, limit + 1],
    );
  }

  async update(id: string, fields: StoreFields): Promise<StoreRow | null> {
    const rows: StoreRow[] = await queryRows(
      this.db.tx,
      `UPDATE stores SET
         name = coalesce($2, name), currency = coalesce($3, currency),
         default_language = coalesce($4, default_language), timezone = coalesce($5, timezone),
         updated_at = now()
       WHERE id = $1 RETURNING *`,
      [id, fields.name ?? null, fields.currency ?? null, fields.default_language ?? null, fields.timezone ?? null],
    );
    return rows[0] ?? null;
  }
}
