import { randomUUID } from 'node:crypto';
import { DataSource, QueryFailedError } from 'typeorm';
import { queryRows } from '@app/core';

/**
 * queryRows inside a transaction sends its statement straight to the transaction's pg connection as a
 * named prepared statement (libs/core/src/database/raw-sql.ts): on the real PostgreSQL, what the
 * connection holds afterwards, and that rows, refusals and several-statement texts come back as TypeORM
 * gave them.
 */
describe('raw SQL in a transaction: named statements on the held connection', () => {
  // The test database as its owner, one connection: the probe table is a temporary one of that connection.
  const db = new DataSource({ type: 'postgres', url: process.env.DATABASE_URL, poolSize: 1 });

  beforeAll(async () => {
    await db.initialize();
    await db.query('CREATE TEMP TABLE raw_sql_probe (id uuid PRIMARY KEY, n int)');
  });
  afterAll(() => db.destroy());

  it('prepares a statement with parameters once per connection and runs it again by its name', async () => {
    const marker = `SELECT $1::int + 1 AS n /* ${randomUUID()} */`;
    const prepared = await db.transaction(async (manager) => {
      const first = await queryRows<{ n: number }>(manager, marker, [1]);
      const second = await queryRows<{ n: number }>(manager, marker, [41]);
      const held = await queryRows<{ statement: string }>(
        manager,
        'SELECT statement FROM pg_prepared_statements WHERE statement = $1',
        [marker],
      );
      return { answers: [first[0].n, second[0].n], held: held.length };
    });
    expect(prepared).toEqual({ answers: [2, 42], held: 1 });
  });

  it('returns UPDATE … RETURNING rows as rows, and a several-statement text as TypeORM did', async () => {
    const id = randomUUID();
    const results = await db.transaction(async (manager) => {
      const inserted = await queryRows(
        manager,
        'INSERT INTO pg_temp.raw_sql_probe (id, n) VALUES ($1, 1) RETURNING n',
        [id],
      );
      const updated = await queryRows(manager, 'UPDATE pg_temp.raw_sql_probe SET n = n + 1 WHERE id = $1 RETURNING n', [
        id,
      ]);
      const several = await queryRows(manager, 'SELECT 1; SELECT 2');
      const viaTypeorm: unknown = await manager.query('SELECT 1; SELECT 2');
      return { inserted, updated, several, viaTypeorm };
    });
    expect(results.inserted).toEqual([{ n: 1 }]);
    expect(results.updated).toEqual([{ n: 2 }]);
    expect(results.several).toEqual(results.viaTypeorm);
  });

  it("refuses with TypeORM's QueryFailedError, the SQLSTATE on it and on its driverError", async () => {
    const id = randomUUID();
    const refusal = await db
      .transaction(async (manager) => {
        await queryRows(manager, 'INSERT INTO pg_temp.raw_sql_probe (id, n) VALUES ($1, 1)', [id]);
        await queryRows(manager, 'INSERT INTO pg_temp.raw_sql_probe (id, n) VALUES ($1, 1)', [id]);
      })
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(QueryFailedError);
    expect(refusal).toMatchObject({ code: '23505', driverError: { code: '23505' } });
  });

  it('after a migration changes what a statement returns, one run is refused, the next prepare it afresh', async () => {
    const read = (id: string) =>
      db.transaction((manager) => queryRows(manager, 'SELECT * FROM pg_temp.raw_sql_probe WHERE id = $1', [id]));
    const id = randomUUID();
    await db.query('INSERT INTO pg_temp.raw_sql_probe (id, n) VALUES ($1, 7)', [id]);
    expect(await read(id)).toEqual([{ id, n: 7 }]);
    await db.query('ALTER TABLE pg_temp.raw_sql_probe ADD COLUMN note text');
    expect(await read(id).catch((error: unknown) => error)).toMatchObject({ code: '0A000' });
    expect(await read(id)).toEqual([{ id, n: 7, note: null }]);
    expect(await read(id)).toEqual([{ id, n: 7, note: null }]);
  });
});
