import pg from 'pg';

export class StartupError extends Error {}

function describeConnectionFailure(url: URL, error: unknown): string {
  const code = (error as { code?: string }).code ?? (error as Error).message;
  return (
    `PostgreSQL is not reachable at ${url.hostname}:${url.port || 5432} ` +
    `(${code}). Start it with "bash scripts/services.sh" or set DATABASE_URL.`
  );
}

/** Creates the database named in DATABASE_URL when it does not exist yet. */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, '')) || 'postgres';
  const admin = new URL(url.toString());
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString(), connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (error) {
    throw new StartupError(describeConnectionFailure(url, error));
  }
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) {
      await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`).catch((error: { code?: string }) => {
        if (error.code !== '42P04') throw error; // created concurrently by another process
      });
    }
  } finally {
    await client.end();
  }
}
