import { Injectable } from '@nestjs/common';
import { queryRows, TenantDb } from '@app/core';
import { STORE_NOTICES, type StoreNotice } from '../templates.js';

export type StoreMailSettings = Record<StoreNotice, boolean>;

/**
 * Which notices a store's owner gets by e-mail (all of them unless turned off), under the caller's row-level security.
 */
@Injectable()
export class MailSettings {
  constructor(private readonly db: TenantDb) {}

  async of(storeId: string): Promise<StoreMailSettings> {
    const [row] = await queryRows<StoreMailSettings>(
      this.db.tx,
      `SELECT ${STORE_NOTICES.join(', ')} FROM store_mail_settings WHERE store_id = $1`,
      [storeId],
    );
    return row ?? (Object.fromEntries(STORE_NOTICES.map((notice) => [notice, true])) as StoreMailSettings);
  }

  /** Sets the given switches, leaving the others as they are; returns all of them. */
  async update(storeId: string, changes: Partial<StoreMailSettings>): Promise<StoreMailSettings> {
    const values = STORE_NOTICES.map((notice) => changes[notice] ?? null);
    const [row] = await queryRows<StoreMailSettings>(
      this.db.tx,
      `INSERT INTO store_mail_settings (store_id, ${STORE_NOTICES.join(', ')})
       VALUES ($1, ${STORE_NOTICES.map((_, i) => `coalesce($${i + 2}::boolean, true)`).join(', ')})
       ON CONFLICT (store_id) DO UPDATE SET
         ${STORE_NOTICES.map(
           (notice, i) => `${notice} = coalesce($${i + 2}::boolean, store_mail_settings.${notice})`,
         ).join(', ')},
         updated_at = now()
       RETURNING ${STORE_NOTICES.join(', ')}`,
      [storeId, ...values],
    );
    return row;
  }
}
