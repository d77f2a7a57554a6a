import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { DataSource } from 'typeorm';
import {
  applyDeclaredSql,
  declaredSqlFiles,
  migrationDataSourceOptions,
  SYSTEM_ROLE,
  type LibDatabase,
} from '@app/core';
import { LIB_DATABASES } from '../apps/api/src/app.module.js';
import { merchantWithStore, startApp, type TestApp } from './support/app.js';
import { asRequest, createPrivateDatabase } from './support/database.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SCHEMAS = ['public', 'storefront_private'];

type Declarations = Record<'functions' | 'triggers' | 'policies', Map<string, string[]>>;

/** What the sql/ files declare, by name (`schema.function`, `table.trigger`, `table.policy`), and the files that do. */
function declarations(libs: readonly Pick<LibDatabase, 'name' | 'sql'>[]): Declarations {
  const found: Declarations = { functions: new Map(), triggers: new Map(), policies: new Map() };
  const add = (kind: keyof Declarations, name: string, file: string) =>
    found[kind].set(name, [...(found[kind].get(name) ?? []), file]);
  for (const file of declaredSqlFiles(libs)) {
    for (const [, schema, name] of file.text.matchAll(/CREATE OR REPLACE FUNCTION\s+(?:(\w+)\.)?(\w+)\s*\(/gi)) {
      add('functions', `${schema ?? 'public'}.${name}`, file.name);
    }
    for (const [, name, table] of file.text.matchAll(
      /CREATE\s+(?:OR REPLACE\s+)?(?:CONSTRAINT\s+)?TRIGGER\s+(\w+)\s[^;]*?\sON\s+(?:\w+\.)?(\w+)/gi,
    )) {
      add('triggers', `${table}.${name}`, file.name);
    }
    for (const [, name, table] of file.text.matchAll(/CREATE POLICY\s+(\w+)\s+ON\s+(?:\w+\.)?(\w+)/gi)) {
      add('policies', `${table}.${name}`, file.name);
    }
  }
  return found;
}

/** The lib whose migrations make each table. */
function tableOwners(): Map<string, string> {
  const owners = new Map<string, string>();
  for (const lib of fs.readdirSync(path.join(ROOT, 'libs'))) {
    const folder = path.join(ROOT, 'libs', lib, 'src', lib === 'core' ? 'database/migrations' : 'migrations');
    if (!fs.existsSync(folder)) continue;
    for (const file of fs.readdirSync(folder)) {
      for (const [, table] of fs
        .readFileSync(path.join(folder, file), 'utf8')
        .matchAll(/CREATE TABLE (?:\w+\.)?(\w+)/g))
        owners.set(table, lib);
    }
  }
  return owners;
}

/**
 * The database as declared: every lib's sql/ files (libs/<lib>/src/sql/), applied after the migrations
 * in one transaction, on a fresh database of this file's own that the app's start migrated.
 */
describe('the declared database state (libs/*/src/sql/)', () => {
  let database: Awaited<ReturnType<typeof createPrivateDatabase>>;
  let api: TestApp;
  let admin: pg.Client;

  /**
   * What the start-up's sql/ step decides, one object a line: functions, triggers, policies, row-level security and
   * grants.
   */
  const snapshot = async (): Promise<string[]> =>
    (
      await admin.query<{ line: string }>(
        `SELECT 'function ' || p.oid::regprocedure || ' ' || pg_get_userbyid(p.proowner) || ' ' ||
          coalesce(p.proacl::text, '-') || ' '
                || md5(pg_get_functiondef(p.oid)) AS line
           FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
          WHERE n.nspname = ANY ($1) AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid
            AND d.deptype = 'e')
         UNION ALL
         SELECT 'trigger ' || pg_get_triggerdef(t.oid) FROM pg_trigger t WHERE NOT t.tgisinternal
         UNION ALL
         SELECT 'policy ' || tablename || ' ' || policyname || ' ' || permissive || ' ' || cmd || ' ' || roles::text ||
           ' '
                || coalesce(qual, '-') || ' ' || coalesce(with_check, '-')
           FROM pg_policies WHERE schemaname = ANY ($1)
         UNION ALL
         SELECT 'table ' || c.oid::regclass || ' ' || c.relrowsecurity || ' ' || c.relforcerowsecurity || ' ' ||
           coalesce(c.relacl::text, '-')
           FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ANY ($1)
             AND c.relkind IN ('r', 'S')
         UNION ALL
         SELECT 'column ' || a.attrelid::regclass || '.' || a.attname || ' ' || a.attacl::text
           FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = ANY ($1) AND a.attacl IS NOT NULL
         ORDER BY 1`,
        [SCHEMAS],
      )
    ).rows.map((row) => row.line);

  /**
   * Applies the sql/ files of `libs` as the start-up does: the owner role, CREATE on the schema lent to the system
   * role.
   */
  const apply = async (libs: readonly Pick<LibDatabase, 'name' | 'sql'>[], force: boolean): Promise<boolean> => {
    const dataSource = new DataSource(migrationDataSourceOptions(database.url, []));
    await dataSource.initialize();
    await admin.query(`GRANT CREATE ON SCHEMA public TO ${SYSTEM_ROLE}`);
    try {
      return await applyDeclaredSql(dataSource, libs, { force });
    } finally {
      await admin.query(`REVOKE CREATE ON SCHEMA public FROM ${SYSTEM_ROLE}`);
      await dataSource.destroy();
    }
  };

  beforeAll(async () => {
    database = await createPrivateDatabase('declared_sql');
    api = await startApp({ DATABASE_URL: database.url });
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await api?.close();
    await database?.drop();
  });

  it(
    'declares every function, trigger and policy of a fresh database in ' +
      'exactly one file, and each policy in the lib that makes its table',
    async () => {
      const declared = declarations(LIB_DATABASES);
      const inDatabase = async (sql: string) =>
        (await admin.query<{ name: string }>(sql, [SCHEMAS])).rows.map((row) => row.name).sort();
      const functions = await inDatabase(
        `SELECT DISTINCT n.nspname || '.' || p.proname AS name FROM pg_proc p JOIN pg_namespace n
          ON n.oid = p.pronamespace
        WHERE n.nspname = ANY ($1) AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid
          AND d.deptype = 'e')`,
      );
      const triggers = await inDatabase(
        `SELECT c.relname || '.' || t.tgname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace WHERE NOT t.tgisinternal AND n.nspname = ANY ($1)`,
      );
      const policies = await inDatabase(
        `SELECT tablename || '.' || policyname AS name FROM pg_policies WHERE schemaname = ANY ($1)`,
      );
      expect(functions.length).toBeGreaterThan(50);
      expect(policies.length).toBeGreaterThan(60);
      expect([...declared.functions.keys()].sort()).toEqual(functions);
      expect([...declared.triggers.keys()].sort()).toEqual(triggers);
      expect([...declared.policies.keys()].sort()).toEqual(policies);
      for (const kind of ['functions', 'triggers', 'policies'] as const) {
        const twice = [...declared[kind]].filter(([, files]) => files.length !== 1);
        expect(twice, `${kind} declared more than once`).toEqual([]);
      }
      const owners = tableOwners();
      const misplaced = [...declared.policies]
        .map(([name, [file]]) => ({ name, file, owner: owners.get(name.split('.')[0]) }))
        .filter(({ file, owner }) => !file.startsWith(`${owner}/`));
      expect(misplaced).toEqual([]);
    },
  );

  it('applies again to the same state: a policy dropped by hand comes back, one added by hand is gone', async () => {
    const before = await snapshot();
    expect(before.some((line) => line.startsWith('policy orders orders_manage '))).toBe(true);
    await admin.query('DROP POLICY orders_manage ON orders');
    await admin.query(`CREATE POLICY stray_read ON stores FOR SELECT TO storefront_rls USING (true)`);
    expect(await snapshot()).not.toEqual(before);

    expect(await apply(LIB_DATABASES, true)).toBe(true);
    expect(await snapshot()).toEqual(before);
  });

  it(
    'applies nothing when the files are the ones last applied ' + '(a start that changes nothing takes no table lock)',
    async () => {
      await admin.query('DROP POLICY orders_manage ON orders');
      try {
        expect(await apply(LIB_DATABASES, false)).toBe(false);
        expect((await snapshot()).some((line) => line.startsWith('policy orders orders_manage '))).toBe(false);
      } finally {
        expect(await apply(LIB_DATABASES, true)).toBe(true);
      }
    },
  );

  it('follows the recipe of docs/extending.md "A table with its policies": a new table and its sql/ file', async () => {
    const doc = fs.readFileSync(path.join(ROOT, 'docs/extending.md'), 'utf8');
    const recipe = doc.slice(
      doc.indexOf('## A table with its policies'),
      doc.indexOf('\n## ', doc.indexOf('## A table with its policies') + 1),
    );
    const table = /```ts\n\s*await db\.query\(`([^`]+)`\);\n\s*```/.exec(recipe)![1];
    const file = /```sql\n([\s\S]+?)\n\s*```/.exec(recipe)![1].replace(/^ {3}/gm, '');
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-recipe-'));
    const libs = [...LIB_DATABASES, { name: 'recipe', sql: pathToFileURL(`${folder}/`) }];
    try {
      fs.writeFileSync(path.join(folder, 'store-notes.sql'), `${file}\n`);
      await admin.query(`SET ROLE storefront_owner`);
      await admin.query(table);
      await admin.query('RESET ROLE');
      expect(await apply(libs, true)).toBe(true);
      expect(await apply(libs, false)).toBe(false);

      const declared = declarations(libs);
      expect(declared.policies.get('store_notes.store_notes_manage')).toEqual(['recipe/sql/store-notes.sql']);
      expect(declared.policies.get('store_notes.store_notes_system')).toEqual(['recipe/sql/store-notes.sql']);

      const mine = await merchantWithStore(api, 'Notes');
      const other = await merchantWithStore(api, 'Other notes');
      const [note] = await asRequest(api, mine.token, (q) =>
        q(`INSERT INTO store_notes (store_id, body) VALUES ($1, 'restock mugs') RETURNING id`, [mine.storeId]),
      );
      expect(await asRequest(api, mine.token, (q) => q('SELECT id, body FROM store_notes'))).toEqual([
        { id: note.id, body: 'restock mugs' },
      ]);
      expect(await asRequest(api, other.token, (q) => q('SELECT id FROM store_notes'))).toEqual([]);
      await expect(
        asRequest(api, other.token, (q) =>
          q(`INSERT INTO store_notes (store_id, body) VALUES ($1, 'forged')`, [mine.storeId]),
        ),
      ).rejects.toThrow(/row-level security policy for table "store_notes"/);
      await expect(
        asRequest(api, mine.token, (q) => q(`UPDATE store_notes SET store_id = $1`, [other.storeId])),
      ).rejects.toThrow(/permission denied for table store_notes/);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
      await admin.query('DROP TABLE IF EXISTS store_notes');
      await apply(LIB_DATABASES, true);
    }
  });
});
