/**
 * Writes schema.sql: the whole schema of a fresh database after the start-up prepared it (the
 * migrations, then every lib's sql/ files), as `pg_dump --schema-only` prints it, with what varies
 * between runs or pg_dump versions left out (comment lines, `\restrict` keys, session settings).
 * Usage: `npm run schema` after a change to a migration or a sql/ file; CI fails when the committed
 * file differs from a fresh generation. The dump is made on a database of its own, dropped afterwards;
 * DATABASE_URL names the server (its database is not touched).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { databaseConfig, prepareDatabase } from '@app/core';
import { LIB_DATABASES } from '../apps/api/src/app.module.js';
import { loadAppSettings } from '../apps/api/src/settings.js';

// Built to dist/scripts/: the checkout is two folders up.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OUTPUT = 'schema.sql';

/** The dump without what differs between two runs on the same server version. */
function normaliseDump(dump: string): string {
  const lines = dump
    .split('\n')
    .filter(
      (line) =>
        !line.startsWith('--') && !/^\\(un)?restrict /.test(line) && !/^SET |^SELECT pg_catalog\.set_config/.test(line),
    );
  return `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;
}

const server = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const name = `storefront_schema_${randomBytes(4).toString('hex')}`;
const url = new URL(server.toString());
url.pathname = `/${name}`;
const maintenance = new URL(server.toString());
maintenance.pathname = '/postgres';
const admin = new pg.Client({ connectionString: maintenance.toString() });
await admin.connect();
try {
  // Nothing else of the environment: the schema must not depend on who generates it.
  const settings = loadAppSettings({ NODE_ENV: 'development', DATABASE_URL: url.toString() });
  await prepareDatabase(settings.get(databaseConfig), LIB_DATABASES);
  const dump = execFileSync('pg_dump', ['--schema-only', '--dbname', url.toString()], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  fs.writeFileSync(path.join(ROOT, OUTPUT), normaliseDump(dump));
  console.log(`Wrote ${OUTPUT}`);
} finally {
  await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
  await admin.end();
}
process.exit(0);
