import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DataSource } from 'typeorm';
import { PRIVATE_SCHEMA } from './roles.js';

/**
 * What a lib owns in the database (docs/architecture.md § The database):
 * - `migrations`: its tables, columns, constraints and indexes, and moves of their data;
 * - `sql`: its folder of `.sql` files, the current state of everything else that guards those tables
 *   (functions, triggers, row-level security, policies, grants), each file re-runnable as it stands.
 */
export interface LibDatabase {
  /** The lib's folder under libs/. */
  name: string;
  migrations: Function[];
  /** The lib's sql/ folder (`new URL('./sql/', import.meta.url)` beside its index). */
  sql: URL;
}

export interface DeclaredSqlFile {
  /** `<lib>/sql/<file>.sql`, for messages and tests. */
  name: string;
  text: string;
}

/** Core's own tables and sql/ files: applied before every other lib's. */
export const CORE_SQL = new URL('../sql/', import.meta.url);

/** Every lib's sql/ files in the order they are applied: core's, then the libs' as listed, each lib's by file name. */
export function declaredSqlFiles(libs: readonly Pick<LibDatabase, 'name' | 'sql'>[]): DeclaredSqlFile[] {
  return [{ name: 'core', sql: CORE_SQL }, ...libs].flatMap(({ name, sql }) => {
    const folder = fileURLToPath(sql);
    return fs
      .readdirSync(folder)
      .filter((file) => file.endsWith('.sql'))
      .sort()
      .map((file) => ({ name: `${name}/sql/${file}`, text: fs.readFileSync(path.join(folder, file), 'utf8') }));
  });
}

/** What the files say, as one digest: names and contents, in order. */
export function declaredSqlDigest(files: readonly DeclaredSqlFile[]): string {
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${file.name}\0${file.text}\0`);
  return hash.digest('hex');
}

/**
 * Applies every lib's sql/ files in one transaction, on a connection of the migrations (the owner role,
 * under the migration lock, with CREATE on the schema lent to the system role). Every policy is dropped
 * first, so one removed from its file is gone; the files make the rest again. When `force` is false
 * and the files are the ones last applied, nothing is done: a start that changes nothing takes no
 * table lock. Returns whether the files were applied.
 */
export async function applyDeclaredSql(
  dataSource: DataSource,
  libs: readonly Pick<LibDatabase, 'name' | 'sql'>[],
  options: { force: boolean },
): Promise<boolean> {
  const files = declaredSqlFiles(libs);
  const digest = declaredSqlDigest(files);
  const runner = dataSource.createQueryRunner();
  try {
    const [applied] = await runner.query(`SELECT digest FROM ${PRIVATE_SCHEMA}.declared_sql`);
    if (!options.force && applied?.digest === digest) return false;
    await runner.startTransaction();
    try {
      const policies: { policyname: string; schemaname: string; tablename: string }[] = await runner.query(
        `SELECT policyname, schemaname, tablename FROM pg_policies WHERE schemaname IN ('public', '${PRIVATE_SCHEMA}')`,
      );
      for (const { policyname, schemaname, tablename } of policies) {
        await runner.query(`DROP POLICY ${quote(policyname)} ON ${quote(schemaname)}.${quote(tablename)}`);
      }
      for (const file of files) {
        try {
          await runner.query(file.text);
        } catch (error) {
          throw new Error(`${file.name}: ${(error as Error).message}`);
        }
        // A file that switched roles and failed to switch back does not decide the next one's role.
        await runner.query('RESET ROLE');
      }
      await runner.query(
        `INSERT INTO ${PRIVATE_SCHEMA}.declared_sql (digest) VALUES ($1)
         ON CONFLICT (id) DO UPDATE SET digest = EXCLUDED.digest, applied_at = now()`,
        [digest],
      );
      await runner.commitTransaction();
    } catch (error) {
      await runner.rollbackTransaction();
      throw error;
    }
    return true;
  } finally {
    await runner.release();
  }
}

function quote(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}
