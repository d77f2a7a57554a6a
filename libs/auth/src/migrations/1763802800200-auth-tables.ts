import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Auth's tables: users, sessions with their refresh tokens, one-time tokens and PKCE flow states.
 *
 * Tables, columns, constraints and indexes only: their functions, triggers, row-level security,
 * policies and grants are the current state declared in ../sql/, applied after the migrations.
 */
export class AuthTables1763802800200 implements MigrationInterface {
  name = 'AuthTables1763802800200';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE auth_flow_states (
          id uuid DEFAULT gen_random_uuid() NOT NULL,
          link_hash bytea,
          auth_code_hash bytea,
          user_id uuid,
          authentication_method text NOT NULL,
          code_challenge text NOT NULL,
          code_challenge_method text NOT NULL,
          created_at timestamp with time zone DEFAULT now() NOT NULL,
          expires_at timestamp with time zone NOT NULL,
          CONSTRAINT auth_flow_states_authentication_method_check CHECK
            ((authentication_method = ANY (ARRAY['signup'::text, 'recovery'::text, 'email_change'::text,
              'magiclink'::text, 'google'::text]))),
          CONSTRAINT auth_flow_states_check CHECK (((link_hash IS NULL) <> (auth_code_hash IS NULL))),
          CONSTRAINT auth_flow_states_check1 CHECK (((auth_code_hash IS NULL) OR (user_id IS NOT NULL))),
          CONSTRAINT auth_flow_states_code_challenge_check CHECK
            (((length(code_challenge) >= 43) AND (length(code_challenge) <= 128))),
          CONSTRAINT auth_flow_states_code_challenge_method_check CHECK
            ((code_challenge_method = ANY (ARRAY['s256'::text, 'plain'::text])))
      )`);
    await db.query(`
      CREATE TABLE auth_one_time_tokens (
          id uuid DEFAULT gen_random_uuid() NOT NULL,
          user_id uuid NOT NULL,
          kind text NOT NULL,
          email text NOT NULL,
          token_hash bytea NOT NULL,
          code_hash bytea NOT NULL,
          created_at timestamp with time zone DEFAULT now() NOT NULL,
          expires_at timestamp with time zone NOT NULL,
          CONSTRAINT auth_one_time_tokens_kind_check CHECK ((kind = ANY
            (ARRAY['signup'::text, 'recovery'::text, 'email_change'::text, 'magiclink'::text])))
      )`);
    await db.query(`
      CREATE TABLE auth_refresh_tokens (
          id bigint NOT NULL,
          session_id uuid NOT NULL,
          token_hash bytea NOT NULL,
          parent_id bigint,
          used_at timestamp with time zone,
          created_at timestamp with time zone DEFAULT now() NOT NULL
      )`);
    await db.query(`
      CREATE SEQUENCE auth_refresh_tokens_id_seq
          START WITH 1
          INCREMENT BY 1
          NO MINVALUE
          NO MAXVALUE
          CACHE 1`);
    await db.query(`ALTER SEQUENCE auth_refresh_tokens_id_seq OWNED BY auth_refresh_tokens.id`);
    await db.query(`
      CREATE TABLE auth_sessions (
          id uuid DEFAULT gen_random_uuid() NOT NULL,
          user_id uuid NOT NULL,
          created_at timestamp with time zone DEFAULT now() NOT NULL,
          refreshed_at timestamp with time zone,
          revoked_at timestamp with time zone,
          user_agent text,
          ip inet
      )`);
    await db.query(`
      CREATE TABLE users (
          id uuid DEFAULT gen_random_uuid() NOT NULL,
          email text NOT NULL,
          password_hash text,
          role text NOT NULL,
          full_name text,
          provider text DEFAULT 'email'::text NOT NULL,
          store_id uuid,
          created_at timestamp with time zone DEFAULT now() NOT NULL,
          updated_at timestamp with time zone DEFAULT now() NOT NULL,
          last_sign_in_at timestamp with time zone,
          email_confirmed_at timestamp with time zone,
          confirmation_sent_at timestamp with time zone,
          recovery_sent_at timestamp with time zone,
          new_email text,
          email_change_sent_at timestamp with time zone,
          user_metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
          CONSTRAINT users_check CHECK (((role = 'customer'::text) = (store_id IS NOT NULL))),
          CONSTRAINT users_role_check CHECK ((role = ANY (ARRAY['merchant'::text, 'team_member'::text, 'customer'::text,
            'admin'::text]))),
          CONSTRAINT users_user_metadata_check CHECK (((jsonb_typeof(user_metadata) = 'object'::text)
            AND (octet_length((user_metadata)::text) <= 16384)))
      )`);
    await db.query(
      `ALTER TABLE auth_refresh_tokens ALTER COLUMN id SET DEFAULT nextval('auth_refresh_tokens_id_seq'::regclass)`,
    );
    await db.query(`
      ALTER TABLE auth_flow_states
          ADD CONSTRAINT auth_flow_states_auth_code_hash_key UNIQUE (auth_code_hash)`);
    await db.query(`
      ALTER TABLE auth_flow_states
          ADD CONSTRAINT auth_flow_states_link_hash_key UNIQUE (link_hash)`);
    await db.query(`
      ALTER TABLE auth_flow_states
          ADD CONSTRAINT auth_flow_states_pkey PRIMARY KEY (id)`);
    await db.query(`
      ALTER TABLE auth_one_time_tokens
          ADD CONSTRAINT auth_one_time_tokens_pkey PRIMARY KEY (id)`);
    await db.query(`
      ALTER TABLE auth_one_time_tokens
          ADD CONSTRAINT auth_one_time_tokens_token_hash_key UNIQUE (token_hash)`);
    await db.query(`
      ALTER TABLE auth_one_time_tokens
          ADD CONSTRAINT auth_one_time_tokens_user_id_kind_key UNIQUE (user_id, kind)`);
    await db.query(`
      ALTER TABLE auth_refresh_tokens
          ADD CONSTRAINT auth_refresh_tokens_pkey PRIMARY KEY (id)`);
    await db.query(`
      ALTER TABLE auth_refresh_tokens
          ADD CONSTRAINT auth_refresh_tokens_token_hash_key UNIQUE (token_hash)`);
    await db.query(`
      ALTER TABLE auth_sessions
          ADD CONSTRAINT auth_sessions_pkey PRIMARY KEY (id)`);
    await db.query(`
      ALTER TABLE users
          ADD CONSTRAINT users_pkey PRIMARY KEY (id)`);
    await db.query(`CREATE INDEX auth_flow_states_expires_idx ON auth_flow_states USING btree (expires_at)`);
    await db.query(
      `CREATE INDEX auth_one_time_tokens_email_idx ON auth_one_time_tokens USING btree (lower(email), kind)`,
    );
    await db.query(`CREATE INDEX auth_refresh_tokens_session_idx ON auth_refresh_tokens USING btree (session_id)`);
    await db.query(
      `CREATE INDEX auth_sessions_user_idx ON auth_sessions USING btree (user_id) WHERE (revoked_at IS NULL)`,
    );
    await db.query(`CREATE UNIQUE INDEX users_email_key ON users USING btree (lower(email))`);
    await db.query(`
      ALTER TABLE auth_flow_states
          ADD CONSTRAINT auth_flow_states_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`);
    await db.query(`
      ALTER TABLE auth_one_time_tokens
          ADD CONSTRAINT auth_one_time_tokens_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id)
            ON DELETE CASCADE`);
    await db.query(`
      ALTER TABLE auth_refresh_tokens
          ADD CONSTRAINT auth_refresh_tokens_parent_id_fkey FOREIGN KEY (parent_id) REFERENCES auth_refresh_tokens(id)
            ON DELETE SET NULL`);
    await db.query(`
      ALTER TABLE auth_refresh_tokens
          ADD CONSTRAINT auth_refresh_tokens_session_id_fkey FOREIGN KEY (session_id) REFERENCES auth_sessions(id)
            ON DELETE CASCADE`);
    await db.query(`
      ALTER TABLE auth_sessions
          ADD CONSTRAINT auth_sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(
      `DROP TABLE users, auth_sessions, auth_refresh_tokens, auth_one_time_tokens, auth_flow_states CASCADE`,
    );
  }
}
