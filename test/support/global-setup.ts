import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';

async function adminClient(databaseUrl: string): Promise<pg.Client> {
  const url = new URL(databaseUrl);
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  return client;
}

/**
 * One fresh database and one Redis key prefix per test run, so tests can run beside a development
 * server; both are removed afterwards (KEEP_TEST_DB=1 keeps them). The first app a test boots runs
 * the migrations, under an advisory lock as in production.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const run = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const name = `storefront_test_${run}`;
  const url = new URL(
    process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  );
  url.pathname = `/${name}`;
  const admin = await adminClient(url.toString());
  await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  await admin.end();
  process.env.DATABASE_URL = url.toString();
  process.env.REDIS_URL ??= 'redis://127.0.0.1:6379';
  process.env.REDIS_PREFIX = `storefront_test:${run}:`;
  process.env.NODE_ENV = 'test';
  process.env.LOG_LEVEL ??= 'silent';

  return async () => {
    if (process.env.KEEP_TEST_DB) return;
    const client = await adminClient(url.toString());
    await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
    await client.end();
    const redis = new Redis(process.env.REDIS_URL!);
    const keys = await redis.keys(`${process.env.REDIS_PREFIX}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  };
}
