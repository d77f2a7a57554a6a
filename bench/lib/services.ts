import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';

/** The bench's own database and Redis key prefix on the local servers, removed by `cleanUp`. */
export interface BenchServices {
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
  /** A pool on the bench database, for setup reads and the consistency checks. */
  db: pg.Pool;
  cleanUp(): Promise<void>;
}

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

export async function createServices(): Promise<BenchServices> {
  const run = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const name = `storefront_bench_${run}`;
  const base = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const adminUrl = withDatabase(base, 'postgres');
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  await admin.end();
  const databaseUrl = withDatabase(base, name);
  const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const redisPrefix = `storefront_bench:${run}:`;
  const db = new pg.Pool({ connectionString: databaseUrl, max: 8 });
  return {
    databaseUrl,
    redisUrl,
    redisPrefix,
    db,
    async cleanUp() {
      await db.end();
      if (process.env.BENCH_KEEP_DB) return;
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
      await client.end();
      const redis = new Redis(redisUrl);
      const keys = await redis.keys(`${redisPrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    },
  };
}
