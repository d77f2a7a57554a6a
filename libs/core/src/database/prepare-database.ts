import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { DataSource, type DataSourceOptions } from 'typeorm';
import type { DatabaseConfig } from './database.config.js';
import { StartupError } from './ensure-database.js';
import { applyDeclaredSql, type LibDatabase } from './declared-sql.js';
import { CoreTables1763802800100 } from './migrations/1763802800100-core-tables.js';
import { OWNER_ROLE, PRIVATE_SCHEMA, REQUEST_ROLE, SYSTEM_ROLE } from './roles.js';
import { connect, loginOf, prepareServer } from './server-roles.js';

export { prepareServer };

/** Core's tables: the private schema, the outbox, idempotency keys (core's sql/ files: CORE_SQL). */
const CORE_MIGRATIONS: Function[] = [CoreTables1763802800100];

const HMAC_BLOCK = 64;

function databaseOf(url: string): string {
  return decodeURIComponent(new URL(url).pathname.replace(/^\//, '')) || 'postgres';
}

/**
 * Server functions every role may call by default that a request has no business with: signalling
 * other backends (one request could cancel everyone's), advisory locks (which outlive a pooled
 * request and could hold the start-up's), large objects. Taken from PUBLIC in this database.
 */
const PUBLIC_FUNCTIONS_REVOKED = [
  'pg_cancel_backend(integer)',
  'pg_terminate_backend(integer, bigint)',
  'pg_advisory_lock(bigint)',
  'pg_advisory_lock(integer, integer)',
  'pg_advisory_lock_shared(bigint)',
  'pg_advisory_lock_shared(integer, integer)',
  'pg_try_advisory_lock(bigint)',
  'pg_try_advisory_lock(integer, integer)',
  'pg_try_advisory_lock_shared(bigint)',
  'pg_try_advisory_lock_shared(integer, integer)',
  'pg_advisory_xact_lock(bigint)',
  'pg_advisory_xact_lock(integer, integer)',
  'pg_advisory_xact_lock_shared(bigint)',
  'pg_advisory_xact_lock_shared(integer, integer)',
  'pg_try_advisory_xact_lock(bigint)',
  'pg_try_advisory_xact_lock(integer, integer)',
  'pg_try_advisory_xact_lock_shared(bigint)',
  'pg_try_advisory_xact_lock_shared(integer, integer)',
  'lo_create(oid)',
  'lo_creat(integer)',
  'lo_from_bytea(oid, bytea)',
  'lo_open(oid, integer)',
  'lo_unlink(oid)',
  'lo_get(oid)',
  'lo_put(oid, bigint, bytea)',
];

async function revokePublicFunctions(client: pg.Client): Promise<void> {
  for (const fn of PUBLIC_FUNCTIONS_REVOKED)
    await client.query(`REVOKE EXECUTE ON FUNCTION pg_catalog.${fn} FROM PUBLIC`);
}

/** Only the three roles connect; nobody but the owner creates anything (schemas included); no temporary tables. */
async function databaseGrants(client: pg.Client, database: string): Promise<void> {
  const db = pg.escapeIdentifier(database);
  await client.query(`REVOKE CONNECT, TEMPORARY ON DATABASE ${db} FROM PUBLIC`);
  await client.query(`GRANT CONNECT ON DATABASE ${db} TO ${OWNER_ROLE}, ${REQUEST_ROLE}, ${SYSTEM_ROLE}`);
  await client.query(`GRANT CREATE ON DATABASE ${db} TO ${OWNER_ROLE}`);
  await client.query(`REVOKE CREATE ON SCHEMA public FROM PUBLIC`);
  await client.query(`GRANT USAGE, CREATE ON SCHEMA public TO ${OWNER_ROLE}`);
}

/**
 * Databases made before the owner role existed belong to the administrative login: their tables,
 * sequences and functions move to the owner role (the system role's functions stay with it).
 */
async function transferOwnership(client: pg.Client): Promise<void> {
  const statements: { sql: string }[] = (
    await client.query(
      `SELECT format('ALTER TABLE %s OWNER TO ${OWNER_ROLE}', c.oid::regclass) AS sql
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
          AND pg_get_userbyid(c.relowner) NOT IN ('${OWNER_ROLE}', '${SYSTEM_ROLE}')
          AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
            AND d.deptype = 'e')
       UNION ALL
       SELECT format('ALTER FUNCTION %s OWNER TO ${OWNER_ROLE}', p.oid::regprocedure)
         FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = 'public' AND pg_get_userbyid(p.proowner) NOT IN ('${OWNER_ROLE}', '${SYSTEM_ROLE}')
          AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid
            AND d.deptype = 'e')`,
    )
  ).rows;
  for (const { sql } of statements) await client.query(sql);
}

/**
 * The DataSource that runs the migrations, at start-up and in the migrations CLI: the owner URL, core's
 * and every lib's migrations (in timestamp order), each in its own transaction, and every object they
 * create owned by the owner role, whoever the login is.
 */
export function migrationDataSourceOptions(url: string, libs: readonly LibDatabase[]): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    extra: { max: 1, options: `-c role=${OWNER_ROLE}`, application_name: 'storefront-migrations' },
    migrations: [...CORE_MIGRATIONS, ...libs.flatMap((lib) => lib.migrations)],
    migrationsTransactionMode: 'each',
    logging: false,
  };
}

/**
 * The pending migrations, then every lib's sql/ files (applyDeclaredSql): when a migration ran, or
 * when the files differ from the ones last applied.
 */
export async function migrateAndDeclare<T>(
  dataSource: DataSource,
  libs: readonly LibDatabase[],
  migrate: () => Promise<T[]>,
): Promise<T[]> {
  const ran = await migrate();
  await applyDeclaredSql(dataSource, libs, { force: ran.length > 0 });
  return ran;
}

async function runMigrations(url: string, libs: readonly LibDatabase[]): Promise<void> {
  const dataSource = new DataSource(migrationDataSourceOptions(url, libs));
  await dataSource.initialize();
  try {
    await migrateAndDeclare(dataSource, libs, () => dataSource.runMigrations({ transaction: 'each' }));
  } finally {
    await dataSource.destroy();
  }
}

/**
 * The installation's request-binding key: made once, unguessably, and kept in the private schema,
 * where only the definer functions read it. The start-up reads it back for the API to sign with.
 */
async function installationKey(client: pg.Client, config: DatabaseConfig): Promise<Buffer> {
  const key = randomBytes(32);
  const padded = Buffer.concat([key, Buffer.alloc(HMAC_BLOCK - key.length)]);
  const ipad = Buffer.from(padded.map((byte) => byte ^ 0x36));
  const opad = Buffer.from(padded.map((byte) => byte ^ 0x5c));
  const { rows } = await client.query(
    `INSERT INTO ${PRIVATE_SCHEMA}.installation (binding_key, binding_ipad, binding_opad, session_max_age)
     VALUES ($1, $2, $3, make_interval(secs => $4))
     ON CONFLICT (id) DO UPDATE SET session_max_age = EXCLUDED.session_max_age
     RETURNING binding_key`,
    [key, ipad, opad, config.SESSION_MAX_AGE],
  );
  return rows[0].binding_key as Buffer;
}

/** Held while migrations run: the start-up's connection, holding the migration lock. */
export interface MigrationLock {
  /** The administrative connection that holds the lock (it ends with `release`). */
  client: pg.Client;
  /** Takes back what the migrations were lent and closes the connection (the lock goes with it). */
  release(): Promise<void>;
}

/**
 * What the database needs right before migrations run, done under the migration lock (instances
 * starting together, or a start beside the CLI, migrate one at a time): the application logins'
 * per-database settings reset, the database's grants, on a superuser login the ownership of objects
 * made before the owner role existed and the revoked server functions, and CREATE on the schema lent
 * to the system role (a definer function's new owner must be allowed to create in its schema).
 */
export async function lockForMigrations(config: DatabaseConfig): Promise<MigrationLock> {
  const ownerUrl = config.ownerDatabaseUrl;
  const client = await connect(ownerUrl);
  let lent = false;
  const release = async () => {
    try {
      if (lent) await client.query(`REVOKE CREATE ON SCHEMA public FROM ${SYSTEM_ROLE}`);
    } finally {
      lent = false;
      await client.end().catch(() => undefined);
    }
  };
  try {
    // Any role may take an advisory lock: a start does not wait for ever on one held elsewhere.
    await client.query(`SET lock_timeout = '120s'`);
    await client
      .query(`SELECT pg_advisory_lock(hashtext('storefront:migrations'))`)
      .catch((error: { code?: string }) => {
        if (error.code === '55P03') {
          throw new StartupError(
            'The migration lock has been held for 2 minutes by another ' +
              'connection; find it in pg_locks (advisory) and end it.',
          );
        }
        throw error;
      });
    for (const url of [config.requestDatabaseUrl, config.serviceDatabaseUrl]) {
      const name = pg.escapeIdentifier(loginOf(url).name);
      await client
        .query(`ALTER ROLE ${name} IN DATABASE ${pg.escapeIdentifier(databaseOf(ownerUrl))} RESET ALL`)
        .catch(() => undefined);
    }
    const [me] = (await client.query(`SELECT rolsuper FROM pg_roles WHERE rolname = current_user`)).rows;
    await databaseGrants(client, databaseOf(ownerUrl));
    if (me.rolsuper) {
      await transferOwnership(client);
      await revokePublicFunctions(client);
    }
    await client.query(`GRANT CREATE ON SCHEMA public TO ${SYSTEM_ROLE}`);
    lent = true;
  } catch (error) {
    await release();
    throw error instanceof StartupError
      ? error
      : new StartupError(`Database preparation failed: ${(error as Error).message}`);
  }
  return { client, release };
}

/**
 * Everything the database needs before the application connects, through the administrative login
 * of DATABASE_URL (or DATABASE_OWNER_URL), which is closed afterwards: the database, the roles and
 * their grants, the migrations and then every lib's sql/ files (run as the owner role, under an
 * advisory lock so instances starting together apply each once), and the installation's
 * request-binding key (put on `config`).
 */
export async function prepareDatabase(config: DatabaseConfig, libs: readonly LibDatabase[]): Promise<void> {
  await prepareServer(config);
  const lock = await lockForMigrations(config);
  try {
    await runMigrations(config.ownerDatabaseUrl, libs);
    config.requestBindingKey = await installationKey(lock.client, config);
  } catch (error) {
    throw error instanceof StartupError
      ? error
      : new StartupError(`Database preparation failed: ${(error as Error).message}`);
  } finally {
    await lock.release();
  }
}
