import { Injectable } from '@nestjs/common';
import { type Cursor, queryRows, ScopedDb, SystemDb, TenantDb } from '@app/core';
import type { WebhookRow, WebhookStatus } from './webhook.js';

export interface WebhookChanges {
  url?: string;
  events?: string[];
  secretSealed?: string;
  secretHint?: string;
  status?: WebhookStatus;
}

@Injectable()
export class WebhookRepository {
  constructor(
    private readonly db: TenantDb,
    private readonly system: SystemDb,
    private readonly scoped: ScopedDb,
  ) {}

  async insert(
    storeId: string,
    url: string,
    events: string[],
    secretSealed: string,
    secretHint: string,
  ): Promise<WebhookRow> {
    const rows = await queryRows<WebhookRow>(
      this.db.tx,
      'INSERT INTO webhooks (store_id, url, events, secret_sealed, ' +
        'secret_hint) VALUES ($1, $2, $3, $4, $5) RETURNING *',
      [storeId, url, events, secretSealed, secretHint],
    );
    return rows[0];
  }

  async findVisible(id: string): Promise<WebhookRow | null> {
    return (await queryRows<WebhookRow>(this.db.tx, 'SELECT * FROM webhooks WHERE id = $1', [id]))[0] ?? null;
  }

  async findForUpdate(id: string): Promise<WebhookRow | null> {
    return (
      (await queryRows<WebhookRow>(this.db.tx, 'SELECT * FROM webhooks WHERE id = $1 FOR UPDATE', [id]))[0] ?? null
    );
  }

  async pageOfStore(storeId: string, limit: number, after: Cursor | null): Promise<WebhookRow[]> {
    return queryRows<WebhookRow>(
      this.db.tx,
      `SELECT * FROM webhooks WHERE store_id = $1 AND ($2::timestamptz IS NULL
        OR (created_at, id) < ($2::timestamptz, $3::uuid))
        ORDER BY created_at DESC, id DESC LIMIT $4`,
      [storeId, after?.createdAt ?? null, after?.id ?? null, limit + 1],
    );
  }

  /** Applies the changes; re-enabling clears the disabled reason. */
  async update(id: string, changes: WebhookChanges): Promise<WebhookRow> {
    const rows = await queryRows<WebhookRow>(
      this.db.tx,
      `UPDATE webhooks SET
         url = coalesce($2, url), events = coalesce($3, events),
         secret_sealed = coalesce($4, secret_sealed), secret_hint = coalesce($5, secret_hint),
         status = coalesce($6, status),
         disabled_reason = CASE WHEN $6 = 'active' THEN NULL WHEN $6 = 'disabled' THEN 'Disabled by the merchant'
           ELSE disabled_reason END,
         updated_at = now()
       WHERE id = $1 RETURNING *`,
      [
        id,
        changes.url ?? null,
        changes.events ?? null,
        changes.secretSealed ?? null,
        changes.secretHint ?? null,
        changes.status ?? null,
      ],
    );
    return rows[0];
  }

  /** Replaces the secret; the old one keeps signing until `previousExpiresAt`. */
  async rotate(id: string, secretSealed: string, secretHint: string, previousExpiresAt: Date): Promise<WebhookRow> {
    const rows = await queryRows<WebhookRow>(
      this.db.tx,
      `UPDATE webhooks SET previous_secret_sealed = secret_sealed, previous_secret_expires_at = $4,
              secret_sealed = $2, secret_hint = $3, updated_at = now()
        WHERE id = $1 RETURNING *`,
      [id, secretSealed, secretHint, previousExpiresAt],
    );
    return rows[0];
  }

  /** Stops a rotated-out secret from signing before its overlap ends (a secret set by PATCH replaces it at once). */
  async dropPreviousSecret(id: string): Promise<void> {
    await queryRows(
      this.db.tx,
      'UPDATE webhooks SET previous_secret_sealed = NULL, ' +
        'previous_secret_expires_at = NULL, updated_at = now() WHERE id = $1',
      [id],
    );
  }

  async delete(id: string): Promise<void> {
    await queryRows(this.scoped.tx, 'DELETE FROM webhooks WHERE id = $1', [id]);
  }

  /** Disables an active webhook; false when it was not active (already disabled, deleted). */
  async disable(id: string, reason: string): Promise<WebhookRow | null> {
    const rows = await queryRows<WebhookRow>(
      this.system.tx,
      `UPDATE webhooks SET status = 'disabled', disabled_reason = $2, ` +
        `updated_at = now() WHERE id = $1 AND status = 'active' RETURNING *`,
      [id, reason],
    );
    return rows[0] ?? null;
  }
}
