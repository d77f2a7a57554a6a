import { SYSTEM_ROLE } from '@app/core';
import { StoreKeyCredits1763802600000 } from '../libs/billing/src/migrations/1763802600000-store-key-credits.js';
import { StoreKeyPosts1763802600100 } from '../libs/social/src/migrations/1763802600100-store-key-posts.js';
import { migratedDatabase, type MigratedDatabase } from './support/migrations.js';

const CHARGE = `'app_charge_credits(uuid, text, text)'`;
const REFUND = `'app_refund_credits(uuid)'`;

/**
 * The store keys' credits and posts migrations go down and up again on a database the app's start
 * migrated: `down` leaves the ledger functions as they were (a user's own charge only) and no key
 * column or author policy; `up` again gives them back.
 */
describe('migration: store keys on credits and posts', () => {
  let db: MigratedDatabase;
  const state = async () => {
    const { rows } = await db.client.query(`
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
    db = await migratedDatabase('store_keys_ai_migration');
  });
  afterAll(() => db?.close());

  it('down removes what up made, and up makes it again', async () => {
    expect(await state()).toMatchObject({ ...all, refund_owner: SYSTEM_ROLE, request_may_charge: true });
    await db.step(new StoreKeyPosts1763802600100(), 'down');
    await db.step(new StoreKeyCredits1763802600000(), 'down');
    const down = await state();
    const none = Object.fromEntries(Object.keys(all).map((name) => [name, false]));
    expect(down).toMatchObject(none);
    expect(down).toMatchObject({ refund_owner: SYSTEM_ROLE, request_may_charge: true });
    await db.step(new StoreKeyCredits1763802600000(), 'up');
    await db.step(new StoreKeyPosts1763802600100(), 'up');
    expect(await state()).toMatchObject({ ...all, refund_owner: SYSTEM_ROLE, request_may_charge: true });
  });
});
