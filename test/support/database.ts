import { getDataSourceToken } from '@nestjs/typeorm';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { databaseConfig, derivedLoginUrl, sessionProof } from '@app/core';
// The service connection is the tenancy module's own (@app/core does not export it): tests reach it by its file.
import { SERVICE_CONNECTION } from '../../libs/core/src/tenancy/connections.js';
import { startApp, type TestApp } from './app.js';

/**
 * The app's service-role connection: tests inspect and arrange rows of every store through it (the
 * system role's policies let it see all rows), never through the request role.
 */
export const SYSTEM_DATA_SOURCE = getDataSourceToken(SERVICE_CONNECTION);

/** The session id an access token names (its `session_id` claim). */
export function sessionIdOf(accessToken: string): string {
  return JSON.parse(Buffer.from(accessToken.split('.')[1], 'base64url').toString('utf8')).session_id;
}

export type Query = (sql: string, params?: unknown[]) => Promise<any>;

/**
 * Runs `work` in a transaction opened exactly as a request's: on the request role's connection, bound
 * to the session of `accessToken` by app_bind_request with the proof only the API can make.
 */
export function asRequest<T>(api: TestApp, accessToken: string, work: (query: Query) => Promise<T>): Promise<T> {
  const sessionId = sessionIdOf(accessToken);
  return api.app.get<DataSource>(getDataSourceToken()).transaction(async (manager) => {
    const bound = await manager.query('SELECT user_id, role FROM app_bind_request($1, $2)', [
      sessionId,
      sessionProof(api.settings.get(databaseConfig).requestBindingKey!, sessionId),
    ]);
    if (bound.length !== 1) throw new Error('the session could not be bound');
    return work((sql, params) => manager.query(sql, params));
  });
}

/**
 * The login of an app without row-level security (startAppWithoutRls); roles are cluster-wide, so it is shared by every
 * run.
 */
export const BYPASS_LOGIN = 'storefront_test_bypass';

/**
 * Boots the app with row-level security out of the way: its request login is BYPASS_LOGIN, a member
 * of the request role that has BYPASSRLS, let through by the test-only UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS.
 * Only the guards stand between tenants in this app: tests of the guards alone use it.
 */
export async function startAppWithoutRls(env: Record<string, string> = {}): Promise<TestApp> {
  const adminUrl = process.env.DATABASE_URL!;
  const url = derivedLoginUrl(adminUrl, BYPASS_LOGIN);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    // Idempotent, and safe against another run creating it at the same moment. The start-up makes it a
    // member of the request role (its grants), and checks it is no superuser and nothing more.
    await admin.query(`
      DO $$ BEGIN
        CREATE ROLE ${BYPASS_LOGIN} LOGIN BYPASSRLS NOSUPERUSER NOCREATEDB NOCREATEROLE;
      EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
      END $$`);
    await admin.query(`ALTER ROLE ${BYPASS_LOGIN} LOGIN BYPASSRLS NOSUPERUSER NOCREATEDB NOCREATEROLE`);
    // With a password on the administrative login, the bypass login gets one derived from it (as the app's logins do).
    const password = decodeURIComponent(new URL(url).password);
    if (password) await admin.query(`ALTER ROLE ${BYPASS_LOGIN} PASSWORD ${admin.escapeLiteral(password)}`);
  } finally {
    await admin.end();
  }
  return startApp({ DATABASE_REQUEST_URL: url, UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS: 'true', ...env });
}

/**
 * A database of a test file's own, beside the run's shared one: for tests that change what is
 * installation-wide (the admin, SESSION_MAX_AGE), which would reach files running at the same time.
 */
export async function createPrivateDatabase(label: string): Promise<{ url: string; drop(): Promise<void> }> {
  const base = new URL(process.env.DATABASE_URL!);
  const name = `${base.pathname.slice(1)}_${label}`;
  const admin = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  await admin((client) => client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`));
  base.pathname = `/${name}`;
  return {
    url: base.toString(),
    drop: () =>
      admin((client) => client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`)).then(
        () => undefined,
      ),
  };
}
