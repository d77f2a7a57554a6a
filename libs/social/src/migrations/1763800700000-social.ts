import type { MigrationInterface, QueryRunner } from 'typeorm';

const PLATFORMS = `('instagram', 'facebook', 'x', 'tiktok', 'threads', 'youtube')`;
const NOW_MS = `date_trunc('milliseconds', clock_timestamp())`;

/**
 * Social publishing: pending OAuth connects, connected accounts (one per platform and
 * store, tokens sealed with SecretBox), posts and their per-platform results.
 *
 * Accounts, posts and results are visible to the store's staff under row-level security; the
 * connect states are read only by the service (the callback has no signed-in user).
 */
export class Social1763800700000 implements MigrationInterface {
  name = 'Social1763800700000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE social_connect_states (
        state_hash text PRIMARY KEY,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        platform text NOT NULL CHECK (platform IN ${PLATFORMS}),
        redirect_url text NOT NULL,
        code_verifier_sealed text,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT ${NOW_MS}
      )`);
    await db.query(`CREATE INDEX social_connect_states_expiry_idx ON social_connect_states (expires_at)`);

    await db.query(`
      CREATE TABLE social_accounts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        platform text NOT NULL CHECK (platform IN ${PLATFORMS}),
        platform_account_id text NOT NULL,
        username text NOT NULL,
        display_name text,
        access_token_sealed text NOT NULL,
        refresh_token_sealed text,
        token_expires_at timestamptz,
        scopes text[] NOT NULL DEFAULT '{}',
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'reauthorize')),
        connected_by uuid REFERENCES users(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT ${NOW_MS},
        updated_at timestamptz NOT NULL DEFAULT ${NOW_MS},
        UNIQUE (store_id, platform)
      )`);

    await db.query(`
      CREATE TABLE social_posts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        created_by uuid REFERENCES users(id) ON DELETE SET NULL,
        platforms text[] NOT NULL,
        content jsonb NOT NULL,
        status text NOT NULL CHECK (status IN ('scheduled', 'publishing', 'published', 'partially_published', 'failed', 'cancelled')),
        scheduled_at timestamptz,
        attempts integer NOT NULL DEFAULT 0,
        publishing_started_at timestamptz,
        finished_at timestamptz,
        cancelled_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT ${NOW_MS},
        updated_at timestamptz NOT NULL DEFAULT ${NOW_MS}
      )`);
    await db.query(`CREATE INDEX social_posts_store_idx ON social_posts (store_id, created_at DESC, id DESC)`);
    await db.query(`CREATE INDEX social_posts_due_idx ON social_posts (scheduled_at) WHERE status IN ('scheduled', 'publishing')`);

    await db.query(`
      CREATE TABLE social_post_results (
        post_id uuid NOT NULL REFERENCES social_posts(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        platform text NOT NULL CHECK (platform IN ${PLATFORMS}),
        status text NOT NULL CHECK (status IN ('pending', 'published', 'failed', 'cancelled')),
        platform_post_id text,
        url text,
        error_code text,
        error_message text,
        published_at timestamptz,
        updated_at timestamptz NOT NULL DEFAULT ${NOW_MS},
        PRIMARY KEY (post_id, platform)
      )`);
    await db.query(`CREATE INDEX social_post_results_platform_post_idx ON social_post_results (platform_post_id)`);

    await db.query(`ALTER TABLE social_connect_states ENABLE ROW LEVEL SECURITY`);
    await db.query(`REVOKE ALL ON social_connect_states FROM storefront_rls`);
    const staff = `(app_role() = 'admin' OR store_id = ANY ((SELECT app_staff_store_ids())::uuid[]))`;
    for (const table of ['social_accounts', 'social_posts', 'social_post_results']) {
      await db.query(`ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`);
      await db.query(`CREATE POLICY ${table}_staff ON ${table} FOR ALL USING (${staff}) WITH CHECK (${staff})`);
    }
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of ['social_post_results', 'social_posts', 'social_accounts', 'social_connect_states']) {
      await db.query(`DROP TABLE ${table}`);
    }
  }
}
