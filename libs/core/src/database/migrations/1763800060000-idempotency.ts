import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency keys: the first successful answer to a charging or publishing POST, kept per user
 * and key for 24 hours. Only the service reads and writes them (request transactions have no rights).
 */
export class CoreIdempotency1763800060000 implements MigrationInterface {
  name = 'CoreIdempotency1763800060000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE idempotency_keys (
        user_id uuid NOT NULL,
        key text NOT NULL,
        route text NOT NULL,
        fingerprint text NOT NULL,
        state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done')),
        response jsonb,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (user_id, key)
      )`);
    await db.query(`CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at)`);
    await db.query(`ALTER TABLE idempotency_keys ENABLE ROW LEVEL SECURITY`);
    await db.query(`REVOKE ALL ON idempotency_keys FROM storefront_rls`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE idempotency_keys`);
  }
}
