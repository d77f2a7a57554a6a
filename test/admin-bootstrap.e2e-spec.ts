import pg from 'pg';
import { StartupError } from '@app/core';
import { createPrivateDatabase } from './support/database.js';
import {
  PUBLIC_KEY,
  merchantWithStore,
  signUp,
  startApp,
  uniqueEmail,
  type Session,
  type TestApp,
} from './support/app.js';

const withKey = { apikey: PUBLIC_KEY };

/**
 * A database of this file's own: each boot here names another admin and so demotes the ones before
 * it, which must not reach the shared database other test files use at the same time.
 */
let database: Awaited<ReturnType<typeof createPrivateDatabase>>;
let databaseUrl: string;

beforeAll(async () => {
  database = await createPrivateDatabase('admins');
  databaseUrl = database.url;
});

afterAll(() => database.drop());

/** Boots an app with this admin, on this file's database, runs `use`, closes it. */
async function withApp<T>(env: Record<string, string>, use: (api: TestApp) => Promise<T>): Promise<T> {
  const api = await startApp({ DATABASE_URL: databaseUrl, ...env });
  try {
    return await use(api);
  } finally {
    await api.close();
  }
}

const admin = (email: string, password: string) => ({ ADMIN_EMAIL: email, ADMIN_PASSWORD: password });

async function signIn(api: TestApp, email: string, password: string) {
  return api.request<Session>('POST', '/auth/v1/token?grant_type=password', {
    headers: withKey,
    body: { email, password },
  });
}

async function storedHash(email: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT password_hash FROM users WHERE lower(email) = lower($1)', [email]);
    return rows[0].password_hash as string;
  } finally {
    await client.end();
  }
}

/** An admin-only call: granting credits to a store. */
const grant = (api: TestApp, token: string, storeId: string) =>
  api.request('POST', '/functions/v1/credits/grant', {
    token,
    body: { store_id: storeId, amount: 1, reason: 'admin bootstrap test' },
  });

describe('admin bootstrap (ADMIN_EMAIL / ADMIN_PASSWORD at boot)', () => {
  // Every test names admins of its own; each boot with ADMIN_EMAIL demotes the admins of earlier ones.

  it('keeps the admin and its sessions while ADMIN_PASSWORD is the same, without rehashing it', async () => {
    const email = uniqueEmail('admin-same');
    const session = await withApp(
      admin(email, 'first-password-1'),
      async (api) => (await signIn(api, email, 'first-password-1')).body,
    );
    expect(session.user.role).toBe('admin');
    const hash = await storedHash(email);

    await withApp(admin(email, 'first-password-1'), async (api) => {
      expect((await api.request('GET', '/auth/v1/user', { token: session.access_token })).status).toBe(200);
      expect(await storedHash(email)).toBe(hash);
    });
  });

  it('a new ADMIN_PASSWORD ends every session of the admin; only the new password signs in', async () => {
    const email = uniqueEmail('admin-rotate');
    const session = await withApp(
      admin(email, 'first-password-1'),
      async (api) => (await signIn(api, email, 'first-password-1')).body,
    );
    expect(session.user.role).toBe('admin');

    await withApp(admin(email, 'second-password-2'), async (api) => {
      expect((await api.request('GET', '/auth/v1/user', { token: session.access_token })).status).toBe(401);
      expect((await api.request('GET', '/functions/v1/stores', { token: session.access_token })).status).toBe(401);
      const refreshed = await api.request('POST', '/auth/v1/token?grant_type=refresh_token', {
        headers: withKey,
        body: { refresh_token: session.refresh_token },
      });
      expect(refreshed.status).toBe(400);
      const old = await signIn(api, email, 'first-password-1');
      expect(old.status).toBe(400);
      expect(old.body).toMatchObject({ error_code: 'invalid_credentials' });
      const fresh = await signIn(api, email, 'second-password-2');
      expect(fresh.status).toBe(200);
      expect(fresh.body.user).toMatchObject({ id: session.user.id, role: 'admin' });
    });
  });

  it(
    'a new ADMIN_EMAIL makes the former admin a merchant and ' +
      'ends its sessions; an unset ADMIN_EMAIL changes nothing',
    async () => {
      const formerEmail = uniqueEmail('admin-former');
      const nextEmail = uniqueEmail('admin-next');
      const { former, storeId } = await withApp(admin(formerEmail, 'former-password-1'), async (api) => {
        const session = (await signIn(api, formerEmail, 'former-password-1')).body;
        expect(session.user.role).toBe('admin');
        return { former: session, storeId: (await merchantWithStore(api)).storeId };
      });

      const next = await withApp(admin(nextEmail, 'next-password-1'), async (api) => {
        expect((await api.request('GET', '/auth/v1/user', { token: former.access_token })).status).toBe(401);
        expect((await grant(api, former.access_token, storeId)).status).toBe(401);
        const again = await signIn(api, formerEmail, 'former-password-1');
        expect(again.body.user).toMatchObject({ id: former.user.id, role: 'merchant' });
        expect((await grant(api, again.body.access_token, storeId)).status).toBe(403);
        const session = (await signIn(api, nextEmail, 'next-password-1')).body;
        expect(session.user.role).toBe('admin');
        expect((await grant(api, session.access_token, storeId)).status).toBe(200);
        return session;
      });

      // Without ADMIN_EMAIL the admin stays an admin, signed in.
      await withApp({}, async (api) => {
        expect((await api.request('GET', '/auth/v1/user', { token: next.access_token })).body).toMatchObject({
          role: 'admin',
        });
        expect((await grant(api, next.access_token, storeId)).status).toBe(200);
      });
    },
  );

  it.each(['merchant', 'customer'] as const)(
    'an ADMIN_EMAIL held by a %s stops the start with one line, and changes nothing',
    async (role) => {
      const email = uniqueEmail(`taken-${role}`);
      const adminEmail = uniqueEmail('admin-standing');
      const { holder, adminSession } = await withApp(admin(adminEmail, 'standing-password-1'), async (api) => {
        const data = role === 'customer' ? { role: 'customer', store_id: (await merchantWithStore(api)).storeId } : {};
        return {
          holder: await signUp(api, data, email),
          adminSession: (await signIn(api, adminEmail, 'standing-password-1')).body,
        };
      });
      expect(holder.user.role).toBe(role);

      const refused = startApp({ DATABASE_URL: databaseUrl, ...admin(email, 'taken-password-1') });
      await expect(refused).rejects.toThrow(StartupError);
      await expect(refused).rejects.toThrow(
        new StartupError(
          `ADMIN_EMAIL ${email} belongs to an existing ${role} account; choose another e-mail or remove that account`,
        ),
      );

      await withApp({}, async (api) => {
        // The account keeps its role, password and session; the standing admin was not demoted.
        expect((await api.request('GET', '/auth/v1/user', { token: holder.access_token })).body).toMatchObject({
          role,
        });
        expect((await signIn(api, email, 'correct horse battery')).status).toBe(200);
        expect((await api.request('GET', '/auth/v1/user', { token: adminSession.access_token })).body).toMatchObject({
          role: 'admin',
        });
      });
    },
  );
});
