import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Notifications' table: what the platform tells a merchant about their store.
 *
 * Table, columns, constraints and indexes only: its row-level security, policies and grants are the
 * current state declared in ../sql/, applied after the migrations.
 */
export class NotificationsTables1763802800450 implements MigrationInterface {
  name = 'NotificationsTables1763802800450';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE merchant_notifications (
          id uuid DEFAULT gen_random_uuid() NOT NULL,
          store_id uuid NOT NULL,
          kind text NOT NULL,
          message text NOT NULL,
          data jsonb DEFAULT '{}'::jsonb NOT NULL,
          created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, now()) NOT NULL
      )`);
    await db.query(`
      ALTER TABLE merchant_notifications
          ADD CONSTRAINT merchant_notifications_pkey PRIMARY KEY (id)`);
    await db.query(
      `CREATE INDEX merchant_notifications_store_idx ON ` +
        `merchant_notifications USING btree (store_id, created_at DESC, id DESC)`,
    );
    await db.query(`
      ALTER TABLE merchant_notifications
          ADD CONSTRAINT merchant_notifications_store_id_fkey FOREIGN KEY (store_id) REFERENCES stores(id)
            ON DELETE CASCADE`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE merchant_notifications CASCADE`);
  }
}
