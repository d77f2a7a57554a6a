import type { MigrationInterface, QueryRunner } from 'typeorm';
import { asSystemRole, REQUEST_ROLE, SYSTEM_ROLE } from '@app/core';

/** The tables whose `platform` column names a social platform (each had a CHECK listing them). */
const PLATFORM_COLUMNS = ['social_connect_states', 'social_accounts', 'social_post_results'];

/**
 * The social platforms a row may name, as a table instead of three CHECK constraints listing them:
 * the rows are the platform registry's (libs/social/src/platforms/registry.ts), written by every
 * process at start (`SocialPlatformRows`), so a new platform needs no migration. Foreign keys check
 * the three `platform` columns against it; they are checked without row-level security and without
 * the writer's own rights, so requests get no right on the table at all. The system role may insert
 * and rename rows, not delete them: a platform taken out of the registry keeps its row while old
 * accounts, posts or states name it.
 *
 * The table starts with the platforms rows already name, so the keys hold at once; the start-up adds
 * the registry's, with their display names.
 */
export class SocialPlatformsTable1763801600200 implements MigrationInterface {
  name = 'SocialPlatformsTable1763801600200';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE social_platforms (
        id text PRIMARY KEY CHECK (id ~ '^[a-z][a-z0-9_]{0,29}$'),
        display_name text NOT NULL CHECK (length(display_name) BETWEEN 1 AND 100)
      )`);
    // The platforms rows name already. Their tables force row-level security, which the owner has no
    // policy of: the system role reads them (its policies see every row).
    const named = await asSystemRole(db, () =>
      db.query(
        `SELECT DISTINCT platform AS id FROM (${PLATFORM_COLUMNS.map((table) => `SELECT platform FROM ${table}`).join(' UNION ')}) named`,
      ),
    );
    // Before row-level security is forced on the new table, while its owner may still write it.
    for (const { id } of named as { id: string }[]) {
      await db.query(`INSERT INTO social_platforms (id, display_name) VALUES ($1, $1)`, [id]);
    }
    await db.query(`ALTER TABLE social_platforms ENABLE ROW LEVEL SECURITY`);
    await db.query(`ALTER TABLE social_platforms FORCE ROW LEVEL SECURITY`);
    await db.query(`REVOKE ALL ON social_platforms FROM PUBLIC, ${REQUEST_ROLE}, ${SYSTEM_ROLE}`);
    await db.query(`GRANT SELECT, INSERT, UPDATE (display_name) ON social_platforms TO ${SYSTEM_ROLE}`);
    await db.query(`CREATE POLICY social_platforms_system ON social_platforms TO ${SYSTEM_ROLE} USING (true) WITH CHECK (true)`);
    for (const table of PLATFORM_COLUMNS) {
      await db.query(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_platform_check`);
      await db.query(`ALTER TABLE ${table} ADD CONSTRAINT ${table}_platform_fkey FOREIGN KEY (platform) REFERENCES social_platforms (id)`);
    }
  }

  async down(db: QueryRunner): Promise<void> {
    const ids = (await asSystemRole(db, () => db.query(`SELECT id FROM social_platforms ORDER BY id`))) as { id: string }[];
    const allowed = ids.map(({ id }) => `'${id}'`).join(', ');
    for (const table of PLATFORM_COLUMNS) {
      await db.query(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_platform_fkey`);
      await db.query(`ALTER TABLE ${table} ADD CONSTRAINT ${table}_platform_check CHECK (platform IN (${allowed}))`);
    }
    await db.query(`DROP TABLE social_platforms`);
  }
}
