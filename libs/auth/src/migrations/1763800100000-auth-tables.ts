import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Users, sessions (one per sign-in) and the single-use refresh tokens rotated within each session. */
export class AuthTables1763800100000 implements MigrationInterface {
  name = 'AuthTables1763800100000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        email text NOT NULL,
        password_hash text,
        role text NOT NULL CHECK (role IN ('merchant', 'team_member', 'customer', 'admin')),
        full_name text,
        provider text NOT NULL DEFAULT 'email',
        store_id uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        last_sign_in_at timestamptz,
        CHECK ((role = 'customer') = (store_id IS NOT NULL))
      )`);
    await db.query(`CREATE UNIQUE INDEX users_email_key ON users (lower(email))`);
    await db.query(`
      CREATE TABLE auth_sessions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        refreshed_at timestamptz,
        revoked_at timestamptz,
        user_agent text,
        ip inet
      )`);
    await db.query(`CREATE INDEX auth_sessions_user_idx ON auth_sessions (user_id) WHERE revoked_at IS NULL`);
    await db.query(`
      CREATE TABLE auth_refresh_tokens (
        id bigserial PRIMARY KEY,
        session_id uuid NOT NULL REFERENCES auth_sessions(id) ON DELETE CASCADE,
        token_hash bytea NOT NULL UNIQUE,
        parent_id bigint REFERENCES auth_refresh_tokens(id) ON DELETE SET NULL,
        used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX auth_refresh_tokens_session_idx ON auth_refresh_tokens (session_id)`);
    // Under the request role a user sees only itself (admins everyone); session tables stay closed to it.
    await db.query(`ALTER TABLE users ENABLE ROW LEVEL SECURITY`);
    await db.query(`CREATE POLICY users_self ON users FOR SELECT USING (id = app_user_id() OR app_role() = 'admin')`);
    await db.query(`ALTER TABLE auth_sessions ENABLE ROW LEVEL SECURITY`);
    await db.query(`ALTER TABLE auth_refresh_tokens ENABLE ROW LEVEL SECURITY`);
    await db.query(`REVOKE ALL ON auth_sessions, auth_refresh_tokens FROM storefront_rls`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE auth_refresh_tokens');
    await db.query('DROP TABLE auth_sessions');
    await db.query('DROP TABLE users');
  }
}
