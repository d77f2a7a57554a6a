import pg from 'pg';
import type { QueryRunner } from 'typeorm';
import { OWNER_ROLE, REQUEST_ROLE } from '@app/core';
import { IdempotencyCallerPolicy1763802700000 } from '@app/commerce';
import { startApp } from './support/app.js';
import { createPrivateDatabase } from './support/database.js';

/**
 * The idempotency caller policy's migration goes down and up again on a database the app's start
 * migrated: `down` gives back the policy on `user_id` alone and UPDATE of every column; `up` binds
 * `caller` again and grants UPDATE of the answer's columns only.
 */
describe('migration: idempotency caller policy', () => {
  let database: Awaited<ReturnType<typeof createPrivateDatabase>>;
  let client: pg.Client;
  let owner: pg.Client;
  const migration = new IdempotencyCallerPolicy1763802700000();
  const query = async (sql: string, parameters?: unknown[]) => (await owner.query(sql, parameters)).rows;
  const runner = { query } as QueryRunner;
  const step = async (direction: 'up' | 'down') => {
    await owner.query('BEGIN');
    try {
      await migration[direction](runner);
      await owner.query('COMMIT');
    } catch (error) {
      await owner.query('ROLLBACK');
      throw error;
    }
  };
  const state = async () => {
    const { rows } = await client.query(
      `SELECT (SELECT qual FROM pg_policies WHERE policyname = 'idempotency_keys_own') AS qual,
              (SELECT with_check FROM pg_policies WHERE policyname = 'idempotency_keys_own') AS with_check,
              has_column_privilege($1, 'idempotency_keys', 'caller', 'UPDATE') AS update_caller,
              has_column_privilege($1, 'idempotency_keys', 'response_body', 'UPDATE') AS update_body`,
      [REQUEST_ROLE],
    );
    return rows[0] as { qual: string; with_check: string; update_caller: boolean; update_body: boolean };
  };

  beforeAll(async () => {
    database = await createPrivateDatabase('idempotency_caller_policy');
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
