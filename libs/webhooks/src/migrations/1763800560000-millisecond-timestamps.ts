import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Every table listed with a `(created_at, id)` cursor. */
const PAGED_TABLES = [
  'stores',
  'store_members',
  'products',
  'customers',
  'orders',
  'webhooks',
  'webhook_deliveries',
  'merchant_notifications',
];

/**
 * Page cursors carry `created_at` in milliseconds (what a JSON date holds), but PostgreSQL kept
 * microseconds: a row created in the same millisecond as a page's last row, a few microseconds
 * earlier, compared greater than the cursor and was skipped. Creation times are now kept to the
 * millisecond, so the cursor is exact.
 */
export class MillisecondTimestamps1763800560000 implements MigrationInterface {
  name = 'MillisecondTimestamps1763800560000';

  async up(db: QueryRunner): Promise<void> {
    for (const table of PAGED_TABLES) {
      await db.query(`ALTER TABLE ${table} ALTER COLUMN created_at SET DEFAULT date_trunc('milliseconds', now())`);
      await db.query(
        `UPDATE ${table} SET created_at = date_trunc('milliseconds', created_at) WHERE created_at <> date_trunc('milliseconds', created_at)`,
      );
    }
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of PAGED_TABLES) await db.query(`ALTER TABLE ${table} ALTER COLUMN created_at SET DEFAULT now()`);
  }
}
