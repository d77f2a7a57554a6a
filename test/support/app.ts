import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { httpConfig, type Settings } from '@app/core';
import { createApp } from '../../apps/api/src/app.factory.js';
import { loadAppSettings } from '../../apps/api/src/settings.js';

export const PUBLIC_KEY = 'test-public-api-key-0123456789';

/**
 * The one admin of the run's database. Every test file that needs an admin names this one: a boot
 * with another ADMIN_EMAIL demotes the admins before it, which would pull the rug from a file running
 * beside it (test/admin-bootstrap.e2e-spec.ts, which changes the admin on purpose, has a database of its own).
 */
export const TEST_ADMIN = { email: 'admin@storefront-tests.example', password: 'test-admin-password-1' };

export interface HttpResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** A real app on the run's PostgreSQL and Redis, listening on 127.0.0.1 (a free port unless `PORT` is given). */
export interface TestApp {
  app: NestFastifyApplication;
  /** The settings the app was started with: `api.settings.get(httpConfig).baseUrl`. */
  settings: Settings;
  url: string;
  request<T = any>(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> },
  ): Promise<HttpResult<T>>;
  close(): Promise<void>;
}

/**
 * Boots the app. The outbox and mail relays are off unless a test turns them on (OUTBOX_RELAY: 'true',
 * MAIL_RELAY: 'true'): apps of other test files share the database, and a relay would claim their rows.
 */
export async function startApp(env: Record<string, string> = {}): Promise<TestApp> {
  // The suite signs many users up (and presents revoked or unknown store keys) from 127.0.0.1: the
  // per-address limits are out of its way unless a test sets one.
  const settings = loadAppSettings({
    ...process.env,
    PUBLIC_API_KEY: PUBLIC_KEY,
    OUTBOX_RELAY: 'false',
    MAIL_RELAY: 'false',
    SIGNUP_LIMIT_PER_IP: '1000000',
    SIGNIN_LIMIT_PER_IP: '1000000',
    STORE_KEY_FAILURES_PER_MINUTE: '1000000',
    ...env,
  });
  const app = await createApp(settings);
  // A free port, unless the test names one: a browser test must know the address before the app
  // starts, since the OpenAPI document that Swagger UI calls names it (PUBLIC_BASE_URL).
  await app.listen(env.PORT === undefined ? 0 : settings.get(httpConfig).PORT, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  const url = `http://127.0.0.1:${address.port}`;
  return {
    app,
    settings,
    url,
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      let body: string | undefined = options.raw;
      if (options.body !== undefined) body = JSON.stringify(options.body);
      if (body !== undefined) headers['content-type'] ??= 'application/json';
      const response = await fetch(`${url}${path}`, { method, headers, body, redirect: 'manual' });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        /* not JSON: keep the text */
      }
      return { status: response.status, body: parsed as any, headers: response.headers };
    },
    close: () => app.close(),
  };
}

export function uniqueEmail(label = 'user'): string {
  return `${label}-${randomUUID().slice(0, 8)}@example.com`;
}

export interface Session {
  access_token: string;
  refresh_token: string;
  user: { id: string; email: string; role: string };
}

/** Signs a new user up through /auth/v1/signup and returns the session. */
export async function signUp(
  api: TestApp,
  data: Record<string, unknown> = {},
  email = uniqueEmail(),
): Promise<Session> {
  const result = await api.request<Session>('POST', '/auth/v1/signup', {
    headers: { apikey: PUBLIC_KEY },
    body: { email, password: 'correct horse battery', data },
  });
  if (result.status !== 200) throw new Error(`sign-up failed: ${result.status} ${JSON.stringify(result.body)}`);
  return result.body;
}

/** A merchant with one store. */
export async function merchantWithStore(
  api: TestApp,
  name = 'Test store',
): Promise<{ session: Session; token: string; storeId: string }> {
  const session = await signUp(api);
  const created = await api.request('POST', '/functions/v1/stores', { token: session.access_token, body: { name } });
  if (created.status !== 201)
    throw new Error(`store creation failed: ${created.status} ${JSON.stringify(created.body)}`);
  return { session, token: session.access_token, storeId: created.body.store.id };
}
