import type { MigrationInterface, QueryRunner } from 'typeorm';
import { REQUEST_ROLE } from '@app/core';

/** Who a request's new post names: exactly the bound caller, a user or a store key. */
const OWN_AUTHOR = `created_by IS NOT DISTINCT FROM (SELECT app_user_id())
  AND api_key_id IS NOT DISTINCT FROM (SELECT app_api_key_id())`;

/**
 * Posts published or scheduled by a store key (docs/social.md): the key is recorded as the post's
 * author (`api_key_id`, beside `created_by` for a user). A request's new post must name the caller it
 * is bound to, checked by the database as the stored events' actor is, so a request cannot write
 * another author. Keys holding `social` already reach their store's posts through
 * `app_store_ids_with('social')`.
 */
export class StoreKeyPosts1763802600100 implements MigrationInterface {
  name = 'StoreKeyPosts1763802600100';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE social_posts
      ADD COLUMN api_key_id uuid REFERENCES store_api_keys(id) ON DELETE SET NULL`);
    await db.query(`CREATE POLICY social_posts_author ON social_posts AS RESTRICTIVE FOR INSERT TO ${REQUEST_ROLE}
      WITH CHECK (${OWN_AUTHOR})`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP POLICY social_posts_author ON social_posts`);
    await db.query(`ALTER TABLE social_posts DROP COLUMN api_key_id`);
  }
}
