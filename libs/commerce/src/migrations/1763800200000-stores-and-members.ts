import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Stores, their team members, and the row-level security every tenant table builds on:
 * app_accessible_store_ids() (stores the user owns, is an active member of, or is a customer of)
 * and app_managed_store_ids() (stores the user owns). Both run as the table owner, so policies
 * can call them without recursing into each other's RLS.
 */
export class StoresAndMembers1763800200000 implements MigrationInterface {
  name = 'StoresAndMembers1763800200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE stores (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        owner_id uuid NOT NULL REFERENCES users(id),
        name text NOT NULL,
        currency char(3) NOT NULL DEFAULT 'USD',
        default_language text NOT NULL DEFAULT 'en',
        timezone text NOT NULL DEFAULT 'UTC',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX stores_owner_idx ON stores (owner_id)`);
    await db.query(`CREATE INDEX stores_page_idx ON stores (created_at DESC, id DESC)`);
    await db.query(`ALTER TABLE users ADD CONSTRAINT users_store_fk FOREIGN KEY (store_id) REFERENCES stores(id) ON DELETE CASCADE`);
    await db.query(`
      CREATE TABLE store_members (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        email text NOT NULL,
        user_id uuid REFERENCES users(id) ON DELETE CASCADE,
        permissions text[] NOT NULL DEFAULT '{}',
        status text NOT NULL DEFAULT 'invited' CHECK (status IN ('invited', 'active')),
        invite_token_hash bytea UNIQUE,
        invite_expires_at timestamptz,
        invited_by uuid REFERENCES users(id) ON DELETE SET NULL,
        accepted_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE UNIQUE INDEX store_members_email_key ON store_members (store_id, lower(email))`);
    await db.query(`CREATE INDEX store_members_user_idx ON store_members (user_id) WHERE status = 'active'`);

    await db.query(`
      CREATE FUNCTION app_accessible_store_ids() RETURNS uuid[]
      LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
        SELECT ARRAY(
          SELECT id FROM stores WHERE owner_id = app_user_id()
          UNION SELECT store_id FROM store_members WHERE user_id = app_user_id() AND status = 'active'
          UNION SELECT store_id FROM users WHERE id = app_user_id() AND role = 'customer' AND store_id IS NOT NULL)
      $$`);
    await db.query(`
      CREATE FUNCTION app_managed_store_ids() RETURNS uuid[]
      LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
        SELECT ARRAY(SELECT id FROM stores WHERE owner_id = app_user_id())
      $$`);

    await db.query(`ALTER TABLE stores ENABLE ROW LEVEL SECURITY`);
    await db.query(`CREATE POLICY stores_read ON stores FOR SELECT
      USING (app_role() = 'admin' OR owner_id = app_user_id() OR id = ANY ((SELECT app_accessible_store_ids())::uuid[]))`);
    await db.query(`CREATE POLICY stores_create ON stores FOR INSERT
      WITH CHECK (owner_id = app_user_id() AND app_role() IN ('merchant', 'admin'))`);
    await db.query(`CREATE POLICY stores_change ON stores FOR UPDATE
      USING (app_role() = 'admin' OR owner_id = app_user_id())`);
    await db.query(`CREATE POLICY stores_delete ON stores FOR DELETE
      USING (app_role() = 'admin' OR owner_id = app_user_id())`);

    await db.query(`ALTER TABLE store_members ENABLE ROW LEVEL SECURITY`);
    await db.query(`CREATE POLICY store_members_read ON store_members FOR SELECT
      USING (app_role() = 'admin' OR store_id = ANY ((SELECT app_managed_store_ids())::uuid[]) OR user_id = app_user_id())`);
    await db.query(`CREATE POLICY store_members_write ON store_members FOR ALL
      USING (app_role() = 'admin' OR store_id = ANY ((SELECT app_managed_store_ids())::uuid[]))
      WITH CHECK (app_role() = 'admin' OR store_id = ANY ((SELECT app_managed_store_ids())::uuid[]))`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE store_members');
    await db.query('ALTER TABLE users DROP CONSTRAINT users_store_fk');
    await db.query('DROP TABLE stores');
    await db.query('DROP FUNCTION app_accessible_store_ids()');
    await db.query('DROP FUNCTION app_managed_store_ids()');
  }
}
