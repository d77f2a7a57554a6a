import { decodeJwt, SignJWT } from 'jose';
import type { DataSource } from 'typeorm';
import { authConfig } from '@app/auth';
import { loadAppSettings } from '../apps/api/src/settings.js';
import { merchantWithStore, PUBLIC_KEY, signUp, startApp, uniqueEmail, type TestApp } from './support/app.js';
import { createPrivateDatabase, SYSTEM_DATA_SOURCE } from './support/database.js';

/**
 * Who a caller is comes from the database on every request: the access token names a session and
 * nothing more. Role claims, removed memberships and old sessions are checked where they live.
 */
describe('identity read from the database on every request', () => {
  let api: TestApp;
  let db: DataSource;

  beforeAll(async () => {
    api = await startApp();
    db = api.app.get<DataSource>(SYSTEM_DATA_SOURCE);
  });
  afterAll(() => api.close());

  /** A token for the same user and session with other claims, signed with the server's own key. */
  async function resigned(token: string, claims: Record<string, unknown>): Promise<string> {
    const original = decodeJwt(token);
    return new SignJWT({ ...original, ...claims })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .sign(new TextEncoder().encode(api.settings.get(authConfig).jwtSecret));
  }

  it('a role claim that disagrees with the database grants nothing', async () => {
    const { token, storeId } = await merchantWithStore(api);
    const other = await merchantWithStore(api);
    const asAdmin = await resigned(token, { role: 'admin' });
    // The signature is valid: the claim is simply not believed.
    expect((await api.request('GET', '/auth/v1/user', { token: asAdmin })).status).toBe(200);
    const grant = await api.request('POST', '/functions/v1/credits/grant', {
      token: asAdmin,
      body: { store_id: storeId, amount: 100_000, reason: 'forged' },
    });
    expect(grant.status).toBe(403);
    expect((await api.request('GET', `/functions/v1/stores/${other.storeId}`, { token: asAdmin })).status).toBe(404);
    const [account] = await db.query('SELECT balance FROM credit_accounts WHERE store_id = $1', [storeId]);
    expect(account.balance).toBe(50);
  });

  /** A store, its owner, and a member of it with `catalog`. */
  async function storeWithMember() {
    const owner = await merchantWithStore(api);
    const email = uniqueEmail('member');
    const invite = await api.request('POST', `/functions/v1/stores/${owner.storeId}/members`, {
      token: owner.token,
      body: { email, permissions: ['catalog'] },
    });
    const member = await signUp(api, { invite_token: invite.body.invite_token }, email);
    return { owner, member, memberId: invite.body.member.id as string };
  }

  it('a removed member loses access on its next request, with the same token', async () => {
    const { owner, member, memberId } = await storeWithMember();
    const list = () =>
      api.request('GET', `/functions/v1/stores/${owner.storeId}/products`, { token: member.access_token });
    expect((await list()).status).toBe(200);
    const removed = await api.request('DELETE', `/functions/v1/stores/${owner.storeId}/members/${memberId}`, {
      token: owner.token,
    });
    expect(removed.status).toBe(200);
    expect((await list()).status).toBe(404);
  });

  it('a permission taken away is gone on the next request', async () => {
    const { owner, member, memberId } = await storeWithMember();
    const create = () =>
      api.request('POST', `/functions/v1/stores/${owner.storeId}/products`, {
        token: member.access_token,
        body: { name: 'Mug', price: 5 },
      });
    expect((await create()).status).toBe(201);
    await api.request('PATCH', `/functions/v1/stores/${owner.storeId}/members/${memberId}`, {
      token: owner.token,
      body: { permissions: ['orders'] },
    });
    expect((await create()).status).toBe(403);
  });

  it('a session ends SESSION_MAX_AGE after its sign-in, however often it was refreshed', async () => {
    // SESSION_MAX_AGE is the installation's: this test has a database of its own.
    const database = await createPrivateDatabase('session_age');
    const api = await startApp({ DATABASE_URL: database.url, SESSION_MAX_AGE: '1d' });
    const db = api.app.get<DataSource>(SYSTEM_DATA_SOURCE);
    try {
      await endsAfterADay(api, db);
    } finally {
      await api.close();
      await database.drop();
    }
  });

  async function endsAfterADay(api: TestApp, db: DataSource): Promise<void> {
    const session = await signUp(api);
    const refreshed = await api.request('POST', '/auth/v1/token?grant_type=refresh_token', {
      headers: { apikey: PUBLIC_KEY },
      body: { refresh_token: session.refresh_token },
    });
    expect(refreshed.status).toBe(200);
    expect((await api.request('GET', '/auth/v1/user', { token: refreshed.body.access_token })).status).toBe(200);
    const sessionId = decodeJwt(refreshed.body.access_token).session_id;
    await db.query(`UPDATE auth_sessions SET created_at = now() - interval '1 day 1 minute' WHERE id = $1`, [
      sessionId,
    ]);
    expect((await api.request('GET', '/auth/v1/user', { token: refreshed.body.access_token })).status).toBe(401);
    const again = await api.request('POST', '/auth/v1/token?grant_type=refresh_token', {
      headers: { apikey: PUBLIC_KEY },
      body: { refresh_token: refreshed.body.refresh_token },
    });
    expect(again.status).toBe(400);
    expect(again.body.error_code).toBe('refresh_token_not_found');
  }

  it('refuses an unreadable SESSION_MAX_AGE at start with one line', async () => {
    const { ConfigError, databaseConfig } = await import('@app/core');
    expect(() => loadAppSettings({ ...process.env, SESSION_MAX_AGE: 'forever' })).toThrow(ConfigError);
    expect(loadAppSettings({ ...process.env, SESSION_MAX_AGE: '12h' }).get(databaseConfig).SESSION_MAX_AGE).toBe(
      43_200,
    );
  });
});
