import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { QueryRunner } from 'typeorm';
import { IdempotencyCallerPolicy1763802700000 } from '@app/commerce';
import { OWNER_ROLE } from '@app/core';
import { CoreIdempotencyCaller1763802200000 as Migration } from '../libs/core/src/database/migrations/1763802200000-idempotency-caller.js';
import { startApp } from './support/app.js';
import { createPrivateDatabase } from './support/database.js';

/**
 * Keys per caller: `up` makes every kept key its user's (`user:<id>`), so a retry across the upgrade
 * still replays; `down` gives the table back its per-user key and forgets keys of other callers.
 * Run as the owner role, as the app's start runs migrations (row-level security forced on it).
 */
describe('migration: idempotency keys per caller', () => {
  let database: Awaited<ReturnType<typeof createPrivateDatabase>>;
  /** The test's own reads and writes (a superuser: no row-level security). */
  let client: pg.Client;
  let owner: pg.Client;
  const migration = new Migration();
  /** A later migration whose policy names `caller`: down before this one, up after it. */
  const later = new IdempotencyCallerPolicy1763802700000();
  const query = async (sql: string, parameters?: unknown[]) => (await owner.query(sql, parameters)).rows;
  const runner = { query } as QueryRunner;
  const step = async (direction: 'up' | 'down') => {
    await owner.query('BEGIN');
    try {
      if (direction === 'down') await later.down(runner);
      await migration[direction](runner);
      if (direction === 'up') await later.up(runner);
      await owner.query('COMMIT');
    } catch (error) {
      await owner.query('ROLLBACK');
      throw error;
    }
  };
  const columns = async () =>
    (
      await client.query<{ name: string }>(
        `SELECT attname AS name FROM pg_attribute
          WHERE attrelid = 'idempotency_keys'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
      )
    ).rows.map((row) => row.name);
  const primaryKey = async () => {
    const sql = `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = 'idempotency_keys_pkey'`;
    return (await client.query(sql)).rows[0].def;
  };

  beforeAll(async () => {
    database = await createPrivateDatabase('idempotency_caller');
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

  it("down keeps the users' keys and forgets the others'; up names each kept key's user", async () => {
    const user = randomUUID();
    const insert = `INSERT INTO idempotency_keys (caller, user_id, key, route, fingerprint)
                    VALUES ($1, $2, $3, 'POST /x', 'f')`;
    await client.query(insert, [`user:${user}`, user, 'mine']);
    await client.query(insert, [`key:${randomUUID()}`, user, 'mine']);
    expect(await primaryKey()).toBe('PRIMARY KEY (caller, key)');

    await step('down');
    expect(await columns()).not.toContain('caller');
    expect(await primaryKey()).toBe('PRIMARY KEY (user_id, key)');
    const kept = (await client.query(`SELECT user_id, key FROM idempotency_keys`)).rows;
    expect(kept).toEqual([{ user_id: user, key: 'mine' }]);

    await step('up');
    expect(await primaryKey()).toBe('PRIMARY KEY (caller, key)');
    const rows = (await client.query(`SELECT caller, user_id, key FROM idempotency_keys`)).rows;
    expect(rows).toEqual([{ caller: `user:${user}`, user_id: user, key: 'mine' }]);
  });
});
