import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';

/**
 * A database and a Redis key prefix of their own on the local servers, removed by `cleanUp`: for the
 * bench, and for the fault tests (which pass their own label and, for the Redis outage, their own Redis).
 */
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

export async function createServices(
  options: { label?: string; redisUrl?: string; databaseUrl?: string } = {},
): Promise<BenchServices> {
  const label = options.label ?? 'bench';
  const run = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const name = `storefront_${label}_${run}`;
  const base = options.databaseUrl ?? process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const adminUrl = withDatabase(base, 'postgres');
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  await admin.end();
  const databaseUrl = withDatabase(base, name);
  const redisUrl = options.redisUrl ?? process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const redisPrefix = `storefront_${label}:${run}:`;
  const db = new pg.Pool({ connectionString: databaseUrl, max: 8 });
  // A server the caller stops (the PostgreSQL outage) drops the idle connections: not a crash.
  db.on('error', () => undefined);
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
      // A Redis the caller has already stopped has nothing left to clean.
      const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      redis.on('error', () => undefined);
      try {
        await redis.connect();
        const keys = await redis.keys(`${redisPrefix}*`);
        if (keys.length > 0) await redis.del(...keys);
      } catch {
        /* gone: nothing to remove */
      } finally {
        redis.disconnect();
      }
    },
  };
}

/**
 * The settings every process started from the build shares, for the bench and the fault tests:
 * production mode on these services, fresh secrets, and local receivers allowed as webhook URLs.
 */
export function productionEnv(services: BenchServices, publicKey: string): Record<string, string> {
  return {
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    DATABASE_URL: services.databaseUrl,
    REDIS_URL: services.redisUrl,
    REDIS_PREFIX: services.redisPrefix,
    JWT_SECRET: randomBytes(32).toString('hex'),
    PUBLIC_API_KEY: publicKey,
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_ALLOW_HTTP: 'true',
    // Every user of a run signs up from 127.0.0.1, and uses its session at once: no e-mail confirmation.
    SIGNUP_LIMIT_PER_IP: '100000000',
    AUTH_CONFIRM_EMAIL: 'false',
  };
}
