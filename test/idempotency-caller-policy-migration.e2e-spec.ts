import { REQUEST_ROLE } from '@app/core';
import { IdempotencyCallerPolicy1763802700000 } from '@app/commerce';
import { migratedDatabase, type MigratedDatabase } from './support/migrations.js';

/**
 * The idempotency caller policy's migration goes down and up again on a database the app's start
 * migrated: `down` gives back the policy on `user_id` alone and UPDATE of every column; `up` binds
 * `caller` again and grants UPDATE of the answer's columns only.
 */
describe('migration: idempotency caller policy', () => {
  let db: MigratedDatabase;
  const migration = new IdempotencyCallerPolicy1763802700000();
  const step = (direction: 'up' | 'down') => db.step(migration, direction);
  const state = async () => {
    const { rows } = await db.client.query(
      `SELECT (SELECT qual FROM pg_policies WHERE policyname = 'idempotency_keys_own') AS qual,
              (SELECT with_check FROM pg_policies WHERE policyname = 'idempotency_keys_own') AS with_check,
              has_column_privilege($1, 'idempotency_keys', 'caller', 'UPDATE') AS update_caller,
              has_column_privilege($1, 'idempotency_keys', 'response_body', 'UPDATE') AS update_body`,
      [REQUEST_ROLE],
    );
    return rows[0] as { qual: string; with_check: string; update_caller: boolean; update_body: boolean };
  };

  beforeAll(async () => {
    db = await migratedDatabase('idempotency_caller_policy');
  });
  afterAll(() => db?.close());

  it('down removes what up made, and up makes it again', async () => {
    const applied = await state();
    expect(applied).toMatchObject({ update_caller: false, update_body: true });
    expect(applied.qual).toContain('caller');
    expect(applied.with_check).toContain('caller');
    await step('down');
    const down = await state();
    expect(down).toMatchObject({ update_caller: true, update_body: true });
    expect(down.qual).not.toContain('caller');
    expect(down.qual).toContain('app_api_key_id');
    await step('up');
    expect(await state()).toEqual(applied);
  });
});
