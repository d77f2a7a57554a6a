import pg from 'pg';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { OWNER_ROLE, SYSTEM_ROLE } from '@app/core';
import { StoreKeyCredits1763802600000 } from '../libs/billing/src/migrations/1763802600000-store-key-credits.js';
import { StoreKeyPosts1763802600100 } from '../libs/social/src/migrations/1763802600100-store-key-posts.js';
import { startApp } from './support/app.js';
import { createPrivateDatabase } from './support/database.js';

const CHARGE = `'app_charge_credits(uuid, text, text)'`;
const REFUND = `'app_refund_credits(uuid)'`;

/**
 * The store keys' credits and posts migrations go down and up again on a database the app's start
 * migrated: `down` leaves the ledger functions as they were (a user's own charge only) and no key
 * column or author policy; `up` again gives them back.
 */
describe('migration: store keys on credits and posts', () => {
  let database: Awaited<ReturnType<typeof createPrivateDatabase>>;
  /** The test's own reads (a superuser). */
  let client: pg.Client;
  /** The migration's connection: the owner role, as the app's start runs migrations. */
  let owner: pg.Client;
  const query = async (sql: string, parameters?: unknown[]) => (await owner.query(sql, parameters)).rows;
  const runner = { query } as QueryRunner;
  const step = async (migration: MigrationInterface, direction: 'up' | 'down') => {
    // As the start-up does while migrating: the system role may replace the functions it owns.
    await client.query(`GRANT CREATE ON SCHEMA public TO ${SYSTEM_ROLE}`);
    await owner.query('BEGIN');
    try {
      await migration[direction](runner);
      await owner.query('COMMIT');
    } catch (error) {
      await owner.query('ROLLBACK');
      throw error;
    } finally {
      await client.query(`REVOKE CREATE ON SCHEMA public FROM ${SYSTEM_ROLE}`);
    }
  };
  const state = async () => {
    const { rows } = await client.query(`
      SELECT EXISTS (SELECT 1 FROM information_schema.columns
                      WHERE table_name = 'credit_ledger' AND column_name = 'api_key_id') AS ledger_column,
             EXISTS (SELECT 1 FROM information_schema.columns
                      WHERE table_name = 'social_posts' AND column_name = 'api_key_id') AS post_column,
             EXISTS (SELECT 1 FROM pg_policies WHERE policyname = 'social_posts_author') AS author_policy,
             position('app_api_key_id' IN pg_get_functiondef(${CHARGE}::regprocedure)) > 0 AS charge,
             position('app_api_key_id' IN pg_get_functiondef(${REFUND}::regprocedure)) > 0 AS refund,
             (SELECT proowner::regrole::text FROM pg_proc WHERE oid = ${REFUND}::regprocedure) AS refund_owner,
             has_function_privilege('storefront_rls', ${CHARGE}, 'EXECUTE') AS request_may_charge`);
    return rows[0];
  };
  const all = { ledger_column: true, post_column: true, author_policy: true, charge: true, refund: true };

  beforeAll(async () => {
    database = await createPrivateDatabase('store_keys_ai_migration');
    await (await startApp({ DATABASE_URL: database.url })).close();
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    owner = new pg.Client({ connectionString: database.url, options: `-c role=${OWNER_ROLE}` });
    await owner.connect();
  });
  afterAll(async () => {
    await owner?.end();
    await client?.end();
    await database?.drop();
  });

  it('down removes what up made, and up makes it again', async () => {
    expect(await state()).toMatchObject({ ...all, refund_owner: SYSTEM_ROLE, request_may_charge: true });
    await step(new StoreKeyPosts1763802600100(), 'down');
    await step(new StoreKeyCredits1763802600000(), 'down');
    const down = await state();
    const none = Object.fromEntries(Object.keys(all).map((name) => [name, false]));
    expect(down).toMatchObject(none);
    expect(down).toMatchObject({ refund_owner: SYSTEM_ROLE, request_may_charge: true });
    await step(new StoreKeyCredits1763802600000(), 'up');
    await step(new StoreKeyPosts1763802600100(), 'up');
    expect(await state()).toMatchObject({ ...all, refund_owner: SYSTEM_ROLE, request_may_charge: true });
  });
});
