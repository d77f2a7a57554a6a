import pg from 'pg';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { OWNER_ROLE, SYSTEM_ROLE } from '@app/core';
import { startApp, type TestApp } from './app.js';
import { createPrivateDatabase } from './database.js';

/** A database of a test file's own, migrated by the app's start, and the connections a migration test needs. */
export interface MigratedDatabase {
  url: string;
  /** The test's own reads and writes: the administrative login, a superuser, so no row-level security. */
  client: pg.Client;
  /**
   * The migrations' connection: the owner role, as the app's start runs migrations, so a migration
   * meets row-level security forced on the owner's tables exactly as it does in production.
   */
  owner: pg.Client;
  /** A runner that sends each statement on `owner`: the migrations only send statements, so it is all they need. */
  runner: QueryRunner;
  /** Runs one migration's `up` or `down` in a transaction of its own, as the app's start runs each migration. */
  step(migration: MigrationInterface, direction: 'up' | 'down'): Promise<void>;
  /** Runs `work` (one or more migration steps) in one transaction on `owner`, rolled back if it throws. */
  inTransaction(work: (runner: QueryRunner) => Promise<void>): Promise<void>;
  /** Closes both connections and drops the database. */
  close(): Promise<void>;
}

/**
 * Creates a private database (see createPrivateDatabase) named after `label` and lets the app's start
 * migrate it, with `env` added to the app's settings; `prepare` may arrange data through the running
 * app before it is closed. Then connects `client` and `owner` (see MigratedDatabase).
 *
 * While a transaction of `step` or `inTransaction` runs, the system role holds CREATE on the schema
 * `public`, lent and taken back as the app's start does while migrating: the system role owns the
 * definer functions, and only a role that may create in their schema may own a replaced one.
 */
export async function migratedDatabase(
  label: string,
  options: { env?: Record<string, string>; prepare?: (api: TestApp) => Promise<void> } = {},
): Promise<MigratedDatabase> {
  const database = await createPrivateDatabase(label);
  const client = new pg.Client({ connectionString: database.url });
  const owner = new pg.Client({ connectionString: database.url, options: `-c role=${OWNER_ROLE}` });
  const close = async () => {
    await owner.end().catch(() => undefined);
    await client.end().catch(() => undefined);
    await database.drop();
  };
  try {
    const api = await startApp({ ...options.env, DATABASE_URL: database.url });
    try {
      await options.prepare?.(api);
    } finally {
      await api.close();
    }
    await client.connect();
    await owner.connect();
  } catch (error) {
    await close();
    throw error;
  }
  const query = async (sql: string, parameters?: unknown[]) => (await owner.query(sql, parameters)).rows;
  const runner = { query } as QueryRunner;
  const inTransaction = async (work: (runner: QueryRunner) => Promise<void>) => {
    await client.query(`GRANT CREATE ON SCHEMA public TO ${SYSTEM_ROLE}`);
    await owner.query('BEGIN');
    try {
      await work(runner);
      await owner.query('COMMIT');
    } catch (error) {
      await owner.query('ROLLBACK');
      throw error;
    } finally {
      await client.query(`REVOKE CREATE ON SCHEMA public FROM ${SYSTEM_ROLE}`);
    }
  };
  return {
    url: database.url,
    client,
    owner,
    runner,
    step: (migration, direction) => inTransaction((runner) => migration[direction](runner)),
    inTransaction,
    close,
  };
}
