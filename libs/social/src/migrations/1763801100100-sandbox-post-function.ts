import type { MigrationInterface, QueryRunner } from 'typeorm';
import { handOverDefiner } from '@app/core';

/**
 * The public page of a post published to the sandbox, as a platform shows a post by its id: this
 * function answers the text and time of one published sandbox result and nothing else.
 */
export class SandboxPostFunction1763801100100 implements MigrationInterface {
  name = 'SandboxPostFunction1763801100100';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE FUNCTION app_sandbox_post(p_platform_post_id text) RETURNS TABLE (text text, published_at timestamptz)
      LANGUAGE sql STABLE SECURITY DEFINER AS $$
        SELECT p.content->>'text', r.published_at
          FROM social_post_results r JOIN social_posts p ON p.id = r.post_id
         WHERE r.platform_post_id = p_platform_post_id AND r.status = 'published'
         LIMIT 1
      $$`);
    await handOverDefiner(db, 'app_sandbox_post(text)');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`SET ROLE storefront_system`);
    await db.query(`DROP FUNCTION app_sandbox_post(text)`);
    await db.query(`RESET ROLE`);
  }
}
