import type { MigrationInterface } from 'typeorm';
import { StoreKeyCredits1763802600000 } from '../libs/billing/src/migrations/1763802600000-store-key-credits.js';
import { StoreApiKeys1763802300000 } from '../libs/commerce/src/migrations/1763802300000-store-api-keys.js';
import { IdempotencyCallerPolicy1763802700000 } from '../libs/commerce/src/migrations/1763802700000-idempotency-caller-policy.js';
import { StoreKeyPosts1763802600100 } from '../libs/social/src/migrations/1763802600100-store-key-posts.js';
import { migratedDatabase, type MigratedDatabase } from './support/migrations.js';

/**
 * The store keys' migration goes down and up again on a database the app's start migrated: `down`
 * leaves no key table, no key function, no actor column and the store sets as they were; `up` again
 * gives them back.
 */
describe('migration: store keys', () => {
  let db: MigratedDatabase;
  const migration = new StoreApiKeys1763802300000();
  /** The later migrations that build on the keys, undone first and done again after, as a revert would. */
  const later: MigrationInterface[] = [
    new StoreKeyCredits1763802600000(),
    new StoreKeyPosts1763802600100(),
    new IdempotencyCallerPolicy1763802700000(),
  ];
  const step = (direction: 'up' | 'down', which: MigrationInterface = migration) => db.step(which, direction);
  const state = async () => {
    const { rows } = await db.client.query(`
      SELECT to_regclass('public.store_api_keys') IS NOT NULL AS keys_table,
             to_regprocedure('app_authorize_api_key(text, uuid, text, uuid, boolean, boolean)') IS NOT NULL AS authorize,
             EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'outbox_events' AND column_name = 'actor') AS actor,
             position('api_key' IN pg_get_functiondef('app_store_ids_with(text)'::regprocedure)) > 0 AS store_sets,
             (SELECT qual FROM pg_policies WHERE policyname = 'idempotency_keys_own') AS idempotency`);
    return rows[0];
  };

  beforeAll(async () => {
    db = await migratedDatabase('store_keys_migration');
  });
  afterAll(() => db?.close());

  it('down removes what up made, and up makes it again', async () => {
    expect(await state()).toMatchObject({ keys_table: true, authorize: true, actor: true, store_sets: true });
    for (const dependent of [...later].reverse()) await step('down', dependent);
    await step('down');
    const down = await state();
    expect(down).toMatchObject({ keys_table: false, authorize: false, actor: false, store_sets: false });
    expect(down.idempotency).not.toContain('app_api_key_id');
    await step('up');
    for (const dependent of later) await step('up', dependent);
    const up = await state();
    expect(up).toMatchObject({ keys_table: true, authorize: true, actor: true, store_sets: true });
    expect(up.idempotency).toContain('app_api_key_id');
  });
});
