import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Social's tables: platforms, accounts, the connect flow's states, posts and their results.
 *
 * Tables, columns, constraints and indexes only: their functions, triggers, row-level security,
 * policies and grants are the current state declared in ../sql/, applied after the migrations.
 */
export class SocialTables1763802800700 implements MigrationInterface {
  name = 'SocialTables1763802800700';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE social_accounts (
          id uuid DEFAULT gen_random_uuid() NOT NULL,
          store_id uuid NOT NULL,
          platform text NOT NULL,
          platform_account_id text NOT NULL,
          username text NOT NULL,
          display_name text,
          access_token_sealed text NOT NULL,
          refresh_token_sealed text,
          token_expires_at timestamp with time zone,
          scopes text[] DEFAULT '{}'::text[] NOT NULL,
          status text DEFAULT 'active'::text NOT NULL,
          connected_by uuid,
          created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, clock_timestamp()) NOT NULL,
          updated_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, clock_timestamp()) NOT NULL,
          CONSTRAINT social_accounts_status_check CHECK ((status = ANY (ARRAY['active'::text, 'reauthorize'::text])))
      )`);
    await db.query(`
      CREATE TABLE social_connect_states (
          state_hash text NOT NULL,
          store_id uuid NOT NULL,
          user_id uuid NOT NULL,
          platform text NOT NULL,
          redirect_url text NOT NULL,
          code_verifier_sealed text,
          expires_at timestamp with time zone NOT NULL,
          created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, clock_timestamp()) NOT NULL,
          browser_hash text,
          started_at timestamp with time zone,
          taken_at timestamp with time zone,
          completion_hash text,
          CONSTRAINT social_connect_states_lifetime CHECK ((expires_at <= (created_at + '00:15:00'::interval)))
      )`);
    await db.query(`
      CREATE TABLE social_platforms (
          id text NOT NULL,
          display_name text NOT NULL,
          CONSTRAINT social_platforms_display_name_check CHECK
            (((length(display_name) >= 1) AND (length(display_name) <= 100))),
          CONSTRAINT social_platforms_id_check CHECK ((id ~ '^[a-z][a-z0-9_]{0,29}$'::text))
      )`);
    await db.query(`
      CREATE TABLE social_post_results (
          post_id uuid NOT NULL,
          store_id uuid NOT NULL,
          platform text NOT NULL,
          status text NOT NULL,
          platform_post_id text,
          url text,
          error_code text,
          error_message text,
          published_at timestamp with time zone,
          updated_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, clock_timestamp()) NOT NULL,
          CONSTRAINT social_post_results_status_check CHECK ((status = ANY
            (ARRAY['pending'::text, 'published'::text, 'failed'::text, 'cancelled'::text])))
      )`);
    await db.query(`
      CREATE TABLE social_posts (
          id uuid DEFAULT gen_random_uuid() NOT NULL,
          store_id uuid NOT NULL,
          created_by uuid,
          platforms text[] NOT NULL,
          content jsonb NOT NULL,
          status text NOT NULL,
          scheduled_at timestamp with time zone,
          attempts integer DEFAULT 0 NOT NULL,
          publishing_started_at timestamp with time zone,
          finished_at timestamp with time zone,
          cancelled_at timestamp with time zone,
          created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, clock_timestamp()) NOT NULL,
          updated_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, clock_timestamp()) NOT NULL,
          api_key_id uuid,
          CONSTRAINT social_posts_status_check CHECK ((status = ANY
            (ARRAY['scheduled'::text, 'publishing'::text, 'published'::text, 'partially_published'::text,
              'failed'::text, 'cancelled'::text])))
      )`);
    await db.query(`
      ALTER TABLE social_accounts
          ADD CONSTRAINT social_accounts_pkey PRIMARY KEY (id)`);
    await db.query(`
      ALTER TABLE social_accounts
          ADD CONSTRAINT social_accounts_store_id_platform_key UNIQUE (store_id, platform)`);
    await db.query(`
      ALTER TABLE social_connect_states
          ADD CONSTRAINT social_connect_states_pkey PRIMARY KEY (state_hash)`);
    await db.query(`
      ALTER TABLE social_platforms
          ADD CONSTRAINT social_platforms_pkey PRIMARY KEY (id)`);
    await db.query(`
      ALTER TABLE social_post_results
          ADD CONSTRAINT social_post_results_pkey PRIMARY KEY (post_id, platform)`);
    await db.query(`
      ALTER TABLE social_posts
          ADD CONSTRAINT social_posts_pkey PRIMARY KEY (id)`);
    await db.query(`CREATE INDEX social_connect_states_expiry_idx ON social_connect_states USING btree (expires_at)`);
    await db.query(
      `CREATE INDEX social_post_results_platform_post_idx ON social_post_results USING btree (platform_post_id)`,
    );
    await db.query(
      `CREATE INDEX social_posts_due_idx ON social_posts USING btree (scheduled_at) ` +
        `WHERE (status = ANY (ARRAY['scheduled'::text, 'publishing'::text]))`,
    );
    await db.query(
      `CREATE INDEX social_posts_store_idx ON social_posts USING btree (store_id, created_at DESC, id DESC)`,
    );
    await db.query(`
      ALTER TABLE social_accounts
          ADD CONSTRAINT social_accounts_connected_by_fkey FOREIGN KEY (connected_by) REFERENCES users(id)
            ON DELETE SET NULL`);
    await db.query(`
      ALTER TABLE social_accounts
          ADD CONSTRAINT social_accounts_platform_fkey FOREIGN KEY (platform) REFERENCES social_platforms(id)`);
    await db.query(`
      ALTER TABLE social_accounts
          ADD CONSTRAINT social_accounts_store_id_fkey FOREIGN KEY (store_id) REFERENCES stores(id) ON DELETE CASCADE`);
    await db.query(`
      ALTER TABLE social_connect_states
          ADD CONSTRAINT social_connect_states_platform_fkey FOREIGN KEY (platform) REFERENCES social_platforms(id)`);
    await db.query(`
      ALTER TABLE social_connect_states
          ADD CONSTRAINT social_connect_states_store_id_fkey FOREIGN KEY (store_id) REFERENCES stores(id)
            ON DELETE CASCADE`);
    await db.query(`
      ALTER TABLE social_connect_states
          ADD CONSTRAINT social_connect_states_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id)
            ON DELETE CASCADE`);
    await db.query(`
      ALTER TABLE social_post_results
          ADD CONSTRAINT social_post_results_platform_fkey FOREIGN KEY (platform) REFERENCES social_platforms(id)`);
    await db.query(`
      ALTER TABLE social_post_results
          ADD CONSTRAINT social_post_results_post_id_fkey FOREIGN KEY (post_id) REFERENCES social_posts(id)
            ON DELETE CASCADE`);
    await db.query(`
      ALTER TABLE social_post_results
          ADD CONSTRAINT social_post_results_store_id_fkey FOREIGN KEY (store_id) REFERENCES stores(id)
            ON DELETE CASCADE`);
    await db.query(`
      ALTER TABLE social_posts
          ADD CONSTRAINT social_posts_api_key_id_fkey FOREIGN KEY (api_key_id) REFERENCES store_api_keys(id)
            ON DELETE SET NULL`);
    await db.query(`
      ALTER TABLE social_posts
          ADD CONSTRAINT social_posts_created_by_fkey FOREIGN KEY (created_by) REFERENCES users(id)
            ON DELETE SET NULL`);
    await db.query(`
      ALTER TABLE social_posts
          ADD CONSTRAINT social_posts_store_id_fkey FOREIGN KEY (store_id) REFERENCES stores(id) ON DELETE CASCADE`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(
      `DROP TABLE social_posts, social_post_results, social_platforms, social_connect_states, social_accounts CASCADE`,
    );
  }
}
