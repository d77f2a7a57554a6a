import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * AI's tables: generated images (covers).
 *
 * Tables, columns, constraints and indexes only: their functions, triggers, row-level security,
 * policies and grants are the current state declared in ../sql/, applied after the migrations.
 */
export class AiTables1763802800600 implements MigrationInterface {
  name = 'AiTables1763802800600';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE ai_images (
          id uuid DEFAULT gen_random_uuid() NOT NULL,
          store_id uuid NOT NULL,
          content_type text NOT NULL,
          width integer NOT NULL,
          height integer NOT NULL,
          bytes bytea NOT NULL,
          created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, clock_timestamp()) NOT NULL,
          CONSTRAINT ai_images_png CHECK ((content_type = 'image/png'::text))
      )`);
    await db.query(`
      ALTER TABLE ai_images
          ADD CONSTRAINT ai_images_pkey PRIMARY KEY (id)`);
    await db.query(`CREATE INDEX ai_images_store_idx ON ai_images USING btree (store_id, created_at DESC)`);
    await db.query(`
      ALTER TABLE ai_images
          ADD CONSTRAINT ai_images_store_id_fkey FOREIGN KEY (store_id) REFERENCES stores(id) ON DELETE CASCADE`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE ai_images CASCADE`);
  }
}
