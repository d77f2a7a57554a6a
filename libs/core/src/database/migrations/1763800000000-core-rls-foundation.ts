import type { MigrationInterface, QueryRunner } from 'typeorm';
import { RLS_ROLE } from '../tenant-context.js';

/**
 * The grants of the request role (no BYPASSRLS, not a table owner, so policies bind it) and the two
 * settings every policy reads (which a later migration makes unforgeable).
 */
export class CoreRlsFoundation1763800000000 implements MigrationInterface {
  name = 'CoreRlsFoundation1763800000000';

  async up(db: QueryRunner): Promise<void> {
    // The role itself is made at start-up (prepareDatabase), by the administrative login: the owner
    // role that runs migrations may not create roles.
    await db.query(`GRANT USAGE ON SCHEMA public TO ${RLS_ROLE}`);
    await db.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${RLS_ROLE}`);
    await db.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO ${RLS_ROLE}`);
    await db.query(`REVOKE ALL ON TABLE migrations FROM ${RLS_ROLE}`);
    await db.query(`
      CREATE FUNCTION app_user_id() RETURNS uuid LANGUAGE sql STABLE AS
      $$ SELECT nullif(current_setting('app.user_id', true), '')::uuid $$`);
    await db.query(`
      CREATE FUNCTION app_role() RETURNS text LANGUAGE sql STABLE AS
      $$ SELECT coalesce(nullif(current_setting('app.role', true), ''), 'none') $$`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP FUNCTION app_role()');
    await db.query('DROP FUNCTION app_user_id()');
    await db.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON TABLES FROM ${RLS_ROLE}`);
    await db.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON SEQUENCES FROM ${RLS_ROLE}`);
  }
}
