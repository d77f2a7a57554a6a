import { Redis } from 'ioredis';
import { StartupError } from '../database/ensure-database.js';

/** Fails fast, with one line, when Redis is not reachable at boot. */
export async function ensureRedis(url: string): Promise<void> {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 5000,
  });
  let cause: { code?: string } | undefined;
  client.on('error', (error: { code?: string }) => (cause ??= error));
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    const where = new URL(url);
    const code = cause?.code ?? (error as { code?: string }).code ?? (error as Error).message;
    throw new StartupError(
      `Redis is not reachable at ${where.hostname}:${where.port || 6379} ` +
        `(${code}). Start it with "bash scripts/services.sh" or set REDIS_URL.`,
    );
  } finally {
    client.disconnect();
  }
}
