import { randomUUID } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import { DataSource, QueryFailedError, type EntityManager, type QueryRunner } from 'typeorm';
import { isoTimestamp, queryRows } from '@app/core';
import pg from 'pg';
import { describedOnce } from '../libs/core/src/database/named-statements.js';
import { apiTypes } from '../libs/core/src/database/type-parsers.js';

/**
 * queryRows inside a transaction sends its statement straight to the transaction's pg connection as a
 * named prepared statement (libs/core/src/database/raw-sql.ts, named-statements.ts): on the real PostgreSQL, what the
 * connection holds afterwards, and that rows, refusals and several-statement texts come back as TypeORM
 * gave them.
 */
describe('raw SQL in a transaction: named statements on the held connection', () => {
  // The test database as its owner, one connection: the probe table is a temporary one of that connection. Its
  // connection describes a statement once, as the app's pools do unless DATABASE_POOLER=transaction.
  const db = new DataSource({
    type: 'postgres',
    url: process.env.DATABASE_URL,
    poolSize: 1,
    extra: { types: describedOnce(pg.types) },
  });

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

  it("a statement run again makes its rows as the first run: each column's parser, a row object each", async () => {
    const columns = '$1::int AS n, $2::timestamptz AS at, $3::text[] AS tags, $4::text AS note';
    const sql = `SELECT ${columns} /* ${randomUUID()} */`;
    const runs = await db.transaction(async (manager) => [
      await queryRows(manager, sql, [1, '2026-11-27 10:00:00.123+00', ['a', 'b'], null]),
      await queryRows(manager, sql, [2, '1999-12-31 23:59:59+00', [], 'x']),
      await queryRows(manager, sql, [3, '2000-02-29 12:00:00+00', ['c'], 'y']),
    ]);
    expect(runs).toEqual([
      [{ n: 1, at: new Date('2026-11-27T10:00:00.123Z'), tags: ['a', 'b'], note: null }],
      [{ n: 2, at: new Date('1999-12-31T23:59:59.000Z'), tags: [], note: 'x' }],
      [{ n: 3, at: new Date('2000-02-29T12:00:00.000Z'), tags: ['c'], note: 'y' }],
    ]);
    expect(runs[1]![0]!.at).toBeInstanceOf(Date);
    expect(Object.keys(runs[2]![0]!)).toEqual(['n', 'at', 'tags', 'note']);
    runs[1]![0]!.n = 99;
    expect(runs[2]![0]!.n).toBe(3);
  });

  it('a statement of the same text whose columns changed is described afresh', async () => {
    const id = randomUUID();
    const sql = `SELECT * FROM pg_temp.raw_sql_shape WHERE id = $1`;
    await db.query('CREATE TEMP TABLE raw_sql_shape (id uuid PRIMARY KEY, n int)');
    await db.query('INSERT INTO pg_temp.raw_sql_shape (id, n) VALUES ($1, 5)', [id]);
    expect(await db.transaction((manager) => queryRows(manager, sql, [id]))).toEqual([{ id, n: 5 }]);
    // Another table under the same name: the prepared statement is planned again, with other columns.
    await db.query('DROP TABLE pg_temp.raw_sql_shape');
    await db.query('CREATE TEMP TABLE raw_sql_shape (id uuid PRIMARY KEY, label text, n bigint)');
    await db.query(`INSERT INTO pg_temp.raw_sql_shape (id, label, n) VALUES ($1, 'six', 6)`, [id]);
    const again = await db
      .transaction((manager) => queryRows(manager, sql, [id]))
      .catch((error: unknown) => (error as { code?: string }).code);
    const rows = again === '0A000' ? await db.transaction((manager) => queryRows(manager, sql, [id])) : again;
    expect(rows).toEqual([{ id, label: 'six', n: '6' }]);
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

  /** A parameter pg's value writer throws on (`toPostgres`), before anything of its Bind is sent. */
  const unwritable = {
    toPostgres() {
      throw new Error('this value cannot be written');
    },
  };

  /** The protocol messages of each kind PostgreSQL sends on the transaction's connection while `work` runs. */
  async function messagesDuring<T>(
    manager: EntityManager,
    kinds: string[],
    work: () => Promise<T>,
  ): Promise<{ result: T; seen: Record<string, number> }> {
    const runner = manager.queryRunner as QueryRunner & { databaseConnection: { connection: EventEmitter } };
    const wire = runner.databaseConnection.connection;
    const seen: Record<string, number> = Object.fromEntries(kinds.map((kind) => [kind, 0]));
    const counters = kinds.map((kind) => [kind, () => (seen[kind] += 1)] as const);
    for (const [kind, count] of counters) wire.on(kind, count);
    try {
      return { result: await work(), seen };
    } finally {
      for (const [kind, count] of counters) wire.off(kind, count);
    }
  }

  it('a statement described once on a connection runs again without Describe, its rows made as before', async () => {
    const sql = `SELECT $1::int AS n, $2::timestamptz AS at, $3::text[] AS tags /* ${randomUUID()} */`;
    const runs = await db.transaction((manager) =>
      messagesDuring(manager, ['rowDescription', 'parseComplete', 'dataRow'], async () => [
        await queryRows(manager, sql, [1, '2026-11-27 10:00:00.5+00', ['a']]),
        await queryRows(manager, sql, [2, '2000-02-29 12:00:00+00', []]),
        await queryRows(manager, sql, [3, '1999-12-31 23:59:59+00', ['b', 'c']]),
      ]),
    );
    expect(runs.result).toEqual([
      [{ n: 1, at: new Date('2026-11-27T10:00:00.500Z'), tags: ['a'] }],
      [{ n: 2, at: new Date('2000-02-29T12:00:00.000Z'), tags: [] }],
      [{ n: 3, at: new Date('1999-12-31T23:59:59.000Z'), tags: ['b', 'c'] }],
    ]);
    expect(runs.seen).toEqual({ rowDescription: 1, parseComplete: 1, dataRow: 3 });
    // The next transaction on the same connection: prepared and described already.
    const later = await db.transaction((manager) =>
      messagesDuring(manager, ['rowDescription'], () => queryRows(manager, sql, [4, '2026-01-01 00:00:00+00', []])),
    );
    expect(later).toEqual({
      result: [{ n: 4, at: new Date('2026-01-01T00:00:00.000Z'), tags: [] }],
      seen: { rowDescription: 0 },
    });
  });

  it('behind a pooler in transaction mode (types not described once), every run asks for its columns', async () => {
    const pooled = new DataSource({ type: 'postgres', url: process.env.DATABASE_URL, poolSize: 1 });
    await pooled.initialize();
    try {
      const sql = `SELECT $1::int AS n /* ${randomUUID()} */`;
      const runs = await pooled.transaction((manager) =>
        messagesDuring(manager, ['rowDescription', 'parseComplete'], async () => [
          await queryRows(manager, sql, [1]),
          await queryRows(manager, sql, [2]),
          await queryRows(manager, sql, [3]),
        ]),
      );
      expect(runs.result).toEqual([[{ n: 1 }], [{ n: 2 }], [{ n: 3 }]]);
      expect(runs.seen).toEqual({ rowDescription: 3, parseComplete: 1 });
    } finally {
      await pooled.destroy();
    }
  });

  it('a value pg cannot write on the first run: refused, and the statement prepares and runs after', async () => {
    const sql = `SELECT $1::text AS word /* ${randomUUID()} */`;
    const answers = await db.transaction(async (manager) => {
      const refused = await queryRows(manager, sql, [unwritable]).catch((error: unknown) => error);
      const after = await queryRows(manager, sql, ['two']);
      const again = await queryRows(manager, sql, ['three']);
      return { refused, after, again };
    });
    expect((answers.refused as Error).message).toBe('this value cannot be written');
    expect(answers.after).toEqual([{ word: 'two' }]);
    expect(answers.again).toEqual([{ word: 'three' }]);
  });

  it('a statement without rows (NoData) runs again without Describe, and does its work each time', async () => {
    const sql = `INSERT INTO pg_temp.raw_sql_probe (id, n) VALUES ($1, $2) /* ${randomUUID()} */`;
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    const runs = await db.transaction((manager) =>
      messagesDuring(manager, ['noData', 'rowDescription', 'commandComplete'], async () => {
        const answers = [];
        for (const [i, id] of ids.entries()) answers.push(await queryRows(manager, sql, [id, i]));
        return answers;
      }),
    );
    expect(runs).toEqual({ result: [[], [], []], seen: { noData: 1, rowDescription: 0, commandComplete: 3 } });
    const stored = await db.query('SELECT n FROM pg_temp.raw_sql_probe WHERE id = ANY($1) ORDER BY n', [ids]);
    expect(stored).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]);
  });

  it('a column renamed under a described statement: a run is refused, never answered under the old name', async () => {
    await db.query('CREATE TEMP TABLE raw_sql_renamed (id uuid PRIMARY KEY, n int)');
    const id = randomUUID();
    await db.query('INSERT INTO pg_temp.raw_sql_renamed (id, n) VALUES ($1, 3)', [id]);
    const read = () =>
      db.transaction((manager) => queryRows(manager, 'SELECT * FROM pg_temp.raw_sql_renamed WHERE id = $1', [id]));
    expect(await read()).toEqual([{ id, n: 3 }]);
    expect(await read()).toEqual([{ id, n: 3 }]);
    await db.query('ALTER TABLE pg_temp.raw_sql_renamed RENAME COLUMN n TO quantity');
    expect(await read().catch((error: unknown) => error)).toMatchObject({ code: '0A000' });
    expect(await read()).toEqual([{ id, quantity: 3 }]);
    expect(await read()).toEqual([{ id, quantity: 3 }]);
  });

  it('a value pg cannot write, on a described statement: that run is refused, the statement goes on', async () => {
    const sql = `SELECT $1::text AS word /* ${randomUUID()} */`;
    const answers = await db.transaction(async (manager) => {
      const first = await queryRows(manager, sql, ['one']);
      const refused = await queryRows(manager, sql, [unwritable]).catch((error: unknown) => error);
      const after = await queryRows(manager, sql, ['three']);
      return { first, refused, after };
    });
    expect(answers.first).toEqual([{ word: 'one' }]);
    expect(answers.refused).toBeInstanceOf(QueryFailedError);
    expect((answers.refused as Error).message).toBe('this value cannot be written');
    expect(answers.after).toEqual([{ word: 'three' }]);
    expect(await db.transaction((manager) => queryRows(manager, sql, ['four']))).toEqual([{ word: 'four' }]);
  });

  it("with the API's parsers: each timestamp answers its ISO text in any session zone, rows as pg's", async () => {
    // The API's pools parse with apiTypes (tenancy/connections.module.ts): the timestamp parser notes the ISO
    // text PostgreSQL's UTC output spells, and the row builder makes the rows.
    const api = new DataSource({
      type: 'postgres',
      url: process.env.DATABASE_URL,
      poolSize: 1,
      extra: { types: apiTypes },
    });
    await api.initialize();
    try {
      const instants = [
        '2026-11-27T21:13:47.123456Z',
        '2026-11-27T21:13:47.000Z',
        '2026-11-27T21:13:47.05Z',
        '2024-02-29T23:59:59.999999Z',
        '0100-01-01T00:00:00Z',
        '9999-12-31T23:59:59.999Z',
      ];
      const sql = `SELECT $1::timestamptz AS at, $2::int AS n, $3::text AS n /* ${randomUUID()} */`;
      for (const zone of ['UTC', 'Asia/Kolkata', 'America/St_Johns']) {
        const rows = await api.transaction(async (manager) => {
          await manager.query(`SET LOCAL TimeZone = '${zone}'`);
          const made = [];
          for (const at of instants) made.push((await queryRows(manager, sql, [at, 1, 'x']))[0]);
          return made;
        });
        expect(rows.map((row) => isoTimestamp(row.at))).toEqual(
          instants.map((at) => new Date(at.replace(/(\.\d{3})\d+Z$/, '$1Z')).toISOString()),
        );
        // A repeated column name: the first one's place, the last one's value, as pg makes it.
        expect(Object.entries(rows[0]!)).toEqual([
          ['at', rows[0]!.at],
          ['n', 'x'],
        ]);
      }
    } finally {
      await api.destroy();
    }
  });
});
