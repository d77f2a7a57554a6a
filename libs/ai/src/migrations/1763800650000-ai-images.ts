import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Generated blog covers, kept in PostgreSQL so that every API instance serves every cover (no
 * shared disk needed). Served publicly by id, like a CDN object; only the service reads or writes.
 */
export class AiImages1763800650000 implements MigrationInterface {
  name = 'AiImages1763800650000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE ai_images (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        content_type text NOT NULL,
        width integer NOT NULL,
        height integer NOT NULL,
        bytes bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp())
      )`);
    await db.query(`CREATE INDEX ai_images_store_idx ON ai_images (store_id, created_at DESC)`);
    await db.query(`ALTER TABLE ai_images ENABLE ROW LEVEL SECURITY`);
    await db.query(`REVOKE ALL ON ai_images FROM storefront_rls`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE ai_images`);
  }
}
