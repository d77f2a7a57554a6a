import type { MigrationInterface, QueryRunner } from 'typeorm';
import { handOverDefiner } from '@app/core';

/**
 * Generated covers are served to anyone holding their URL, like a CDN object (the id is unguessable):
 * this function answers one cover by its id and nothing else, so the public route needs no rights on
 * the table.
 */
export class CoverFunction1763801100000 implements MigrationInterface {
  name = 'CoverFunction1763801100000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE FUNCTION app_cover(p_id uuid) RETURNS TABLE (content_type text, bytes bytea)
      LANGUAGE sql STABLE SECURITY DEFINER AS $$
        SELECT i.content_type, i.bytes FROM ai_images i WHERE i.id = p_id
      $$`);
    await handOverDefiner(db, 'app_cover(uuid)');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`SET ROLE storefront_system`);
    await db.query(`DROP FUNCTION app_cover(uuid)`);
    await db.query(`RESET ROLE`);
  }
}
