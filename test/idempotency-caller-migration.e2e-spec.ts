import { randomUUID } from 'node:crypto';
import { IdempotencyCallerPolicy1763802700000 } from '@app/commerce';
import { CoreIdempotencyCaller1763802200000 as Migration } from '../libs/core/src/database/migrations/1763802200000-idempotency-caller.js';
import { migratedDatabase, type MigratedDatabase } from './support/migrations.js';

/**
 * Keys per caller: `up` makes every kept key its user's (`user:<id>`), so a retry across the upgrade
 * still replays; `down` gives the table back its per-user key and forgets keys of other callers.
 * Run as the owner role, as the app's start runs migrations (row-level security forced on it).
 */
describe('migration: idempotency keys per caller', () => {
  let db: MigratedDatabase;
  const migration = new Migration();
  /** A later migration whose policy names `caller`: down before this one, up after it. */
  const later = new IdempotencyCallerPolicy1763802700000();
  const step = (direction: 'up' | 'down') =>
    db.inTransaction(async (runner) => {
      if (direction === 'down') await later.down(runner);
      await migration[direction](runner);
      if (direction === 'up') await later.up(runner);
    });
  const columns = async () =>
    (
      await db.client.query<{ name: string }>(
        `SELECT attname AS name FROM pg_attribute
          WHERE attrelid = 'idempotency_keys'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
      )
    ).rows.map((row) => row.name);
  const primaryKey = async () => {
    const sql = `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = 'idempotency_keys_pkey'`;
    return (await db.client.query(sql)).rows[0].def;
  };

  beforeAll(async () => {
    db = await migratedDatabase('idempotency_caller');
  });
  afterAll(() => db?.close());

  it("down keeps the users' keys and forgets the others'; up names each kept key's user", async () => {
    const user = randomUUID();
    const insert = `INSERT INTO idempotency_keys (caller, user_id, key, route, fingerprint)
                    VALUES ($1, $2, $3, 'POST /x', 'f')`;
    await db.client.query(insert, [`user:${user}`, user, 'mine']);
    await db.client.query(insert, [`key:${randomUUID()}`, user, 'mine']);
    expect(await primaryKey()).toBe('PRIMARY KEY (caller, key)');

    await step('down');
    expect(await columns()).not.toContain('caller');
    expect(await primaryKey()).toBe('PRIMARY KEY (user_id, key)');
    const kept = (await db.client.query(`SELECT user_id, key FROM idempotency_keys`)).rows;
    expect(kept).toEqual([{ user_id: user, key: 'mine' }]);

    await step('up');
    expect(await primaryKey()).toBe('PRIMARY KEY (caller, key)');
    const rows = (await db.client.query(`SELECT caller, user_id, key FROM idempotency_keys`)).rows;
    expect(rows).toEqual([{ caller: `user:${user}`, user_id: user, key: 'mine' }]);
  });
});
