import { SignJWT } from 'jose';
import type { DataSource } from 'typeorm';
import { AccessTokenService, authConfig } from '@app/auth';
import { hashToken } from '@app/core';
import { PUBLIC_KEY, signUp, startApp, uniqueEmail, type TestApp, TEST_ADMIN } from './support/app.js';
import { SYSTEM_DATA_SOURCE } from './support/database.js';

const PASSWORD = 'correct horse battery';
const withKey = { apikey: PUBLIC_KEY };

function decodeJwt(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
}

describe('/auth/v1', () => {
  let api: TestApp;
  const adminEmail = TEST_ADMIN.email;

  beforeAll(async () => {
    api = await startApp({
      ADMIN_EMAIL: adminEmail,
      ADMIN_PASSWORD: TEST_ADMIN.password,
      SIGNIN_LIMIT_PER_EMAIL: '4',
      SIGNIN_LIMIT_PER_IP: '1000',
    });
  });
  afterAll(() => api.close());

  const password = (email: string, pw = PASSWORD) =>
    api.request('POST', '/auth/v1/token?grant_type=password', { headers: withKey, body: { email, password: pw } });
  const refresh = (token: string) =>
    api.request('POST', '/auth/v1/token?grant_type=refresh_token', {
      headers: withKey,
      body: { refresh_token: token },
    });

  describe('sign-up', () => {
    it(
      'creates a merchant and answers a GoTrue session ' + 'with a 3600 s token carrying the documented claims',
      async () => {
        const email = uniqueEmail();
        const result = await api.request('POST', '/auth/v1/signup', {
          headers: withKey,
          body: {
            email,
            password: PASSWORD,
            data: { full_name: 'Ada' },
            gotrue_meta_security: {},
            code_challenge: null,
          },
        });
        expect(result.status).toBe(200);
        expect(result.body).toMatchObject({
          token_type: 'bearer',
          expires_in: 3600,
          user: { email, role: 'merchant', user_metadata: { full_name: 'Ada' } },
        });
        expect(result.body.user.app_metadata).toMatchObject({ role: 'merchant', provider: 'email' });
        const claims = decodeJwt(result.body.access_token);
        expect(claims).toMatchObject({ sub: result.body.user.id, email, role: 'merchant', aud: 'authenticated' });
        expect(typeof claims.session_id).toBe('string');
        expect(Number(claims.exp) - Number(claims.iat)).toBe(3600);
        expect(result.body.expires_at).toBe(claims.exp);
      },
    );

    it('refuses a short password (422 weak_password), a taken e-mail (422) and a malformed e-mail (400)', async () => {
      const short = await api.request('POST', '/auth/v1/signup', {
        headers: withKey,
        body: { email: uniqueEmail(), password: 'short' },
      });
      expect(short.status).toBe(422);
      expect(short.body).toMatchObject({ code: 422, error_code: 'weak_password' });
      const email = uniqueEmail();
      await signUp(api, {}, email);
      const again = await api.request('POST', '/auth/v1/signup', {
        headers: withKey,
        body: { email: email.toUpperCase(), password: PASSWORD },
      });
      expect(again.status).toBe(422);
      expect(again.body.error_code).toBe('user_already_exists');
      const bad = await api.request('POST', '/auth/v1/signup', {
        headers: withKey,
        body: { email: 'not-an-email', password: PASSWORD },
      });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ code: 400, error_code: 'validation_failed' });
    });

    it('never makes an admin by sign-up', async () => {
      const result = await api.request('POST', '/auth/v1/signup', {
        headers: withKey,
        body: { email: uniqueEmail(), password: PASSWORD, data: { role: 'admin' } },
      });
      expect(result.status).toBe(400);
      expect(result.body.msg).toContain('customer');
    });

    it('makes a customer of an existing store, and refuses an unknown store', async () => {
      const merchant = await signUp(api);
      const store = await api.request('POST', '/functions/v1/stores', {
        token: merchant.access_token,
        body: { name: 'Shop' },
      });
      const customer = await signUp(api, { role: 'customer', store_id: store.body.store.id });
      expect(customer.user.role).toBe('customer');
      expect(decodeJwt(customer.access_token).role).toBe('customer');
      const unknown = await api.request('POST', '/auth/v1/signup', {
        headers: withKey,
        body: {
          email: uniqueEmail(),
          password: PASSWORD,
          data: { role: 'customer', store_id: '5b0c3a4e-1f2d-4c5b-8a9e-0d1c2b3a4f5e' },
        },
      });
      expect(unknown.status).toBe(400);
      const missing = await api.request('POST', '/auth/v1/signup', {
        headers: withKey,
        body: { email: uniqueEmail(), password: PASSWORD, data: { role: 'customer' } },
      });
      expect(missing.status).toBe(400);
    });

    it('needs the public key: none → 401, a wrong apikey → 401', async () => {
      const none = await api.request('POST', '/auth/v1/signup', { body: { email: uniqueEmail(), password: PASSWORD } });
      expect(none.status).toBe(401);
      expect(none.body.code).toBe(401);
      const wrong = await api.request('POST', '/auth/v1/signup', {
        headers: { apikey: 'not-the-key' },
        body: { email: uniqueEmail(), password: PASSWORD },
      });
      expect(wrong.status).toBe(401);
      expect(wrong.body.error_code).toBe('invalid_api_key');
      const bearerKey = await api.request('POST', '/auth/v1/signup', {
        token: PUBLIC_KEY,
        body: { email: uniqueEmail(), password: PASSWORD },
      });
      expect(bearerKey.status).toBe(200);
    });
  });

  describe('password grant', () => {
    it('signs in with the right password and answers invalid_credentials otherwise, unknown e-mail alike', async () => {
      const email = uniqueEmail();
      const created = await signUp(api, {}, email);
      const ok = await password(email);
      expect(ok.status).toBe(200);
      expect(ok.body.user.id).toBe(created.user.id);
      expect(ok.body.refresh_token).not.toBe(created.refresh_token);
      const wrong = await password(email, 'wrong password!');
      expect(wrong.status).toBe(400);
      expect(wrong.body).toEqual({ code: 400, error_code: 'invalid_credentials', msg: 'Invalid login credentials' });
      const unknown = await password(uniqueEmail(), 'whatever password');
      expect(unknown.body).toEqual(wrong.body);
    });

    it('limits attempts per e-mail with 429 and Retry-After', async () => {
      const email = uniqueEmail();
      await signUp(api, {}, email);
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 5; attempt++) statuses.push((await password(email, 'wrong password!')).status);
      expect(statuses.slice(0, 4)).toEqual([400, 400, 400, 400]);
      const blocked = await password(email);
      expect(blocked.status).toBe(429);
      expect(blocked.body.error_code).toBe('over_request_rate_limit');
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    });

    it('creates the admin from ADMIN_EMAIL / ADMIN_PASSWORD at boot', async () => {
      const admin = await password(adminEmail, TEST_ADMIN.password);
      expect(admin.status).toBe(200);
      expect(admin.body.user.role).toBe('admin');
      expect(decodeJwt(admin.body.access_token).role).toBe('admin');
    });
  });

  describe('refresh grant', () => {
    it('rotates: the new token works once, the old one is refused', async () => {
      const session = await signUp(api);
      const first = await refresh(session.refresh_token);
      expect(first.status).toBe(200);
      expect(first.body.refresh_token).not.toBe(session.refresh_token);
      expect(decodeJwt(first.body.access_token).session_id).toBe(decodeJwt(session.access_token).session_id);
      const second = await refresh(first.body.refresh_token);
      expect(second.status).toBe(200);
    });

    it('revokes the whole family when a used token comes back after AUTH_REFRESH_REUSE_INTERVAL', async () => {
      const session = await signUp(api);
      const rotated = await refresh(session.refresh_token);
      // Its rotation 11 s ago: past the default 10 s grace (test/concurrent-refresh.e2e-spec.ts tests within it).
      await api.app
        .get<DataSource>(SYSTEM_DATA_SOURCE)
        .query(`UPDATE auth_refresh_tokens SET used_at = used_at - interval '11 seconds' WHERE token_hash = $1`, [
          hashToken(session.refresh_token),
        ]);
      const reuse = await refresh(session.refresh_token);
      expect(reuse.status).toBe(400);
      expect(reuse.body.error_code).toBe('refresh_token_already_used');
      const descendant = await refresh(rotated.body.refresh_token);
      expect(descendant.status).toBe(400);
      const user = await api.request('GET', '/auth/v1/user', { token: rotated.body.access_token });
      expect(user.status).toBe(401);
    });

    it('answers refresh_token_not_found for an unknown token', async () => {
      const result = await refresh('no-such-token');
      expect(result.status).toBe(400);
      expect(result.body.error_code).toBe('refresh_token_not_found');
    });

    it('answers two concurrent refreshes of the same token with the one new token', async () => {
      const session = await signUp(api);
      const results = await Promise.all([refresh(session.refresh_token), refresh(session.refresh_token)]);
      expect(results.map((r) => r.status)).toEqual([200, 200]);
      expect(results[0].body.refresh_token).toBe(results[1].body.refresh_token);
    });
  });

  describe('tokens on protected routes', () => {
    it('GET /user answers the user for a valid token', async () => {
      const session = await signUp(api, { full_name: 'Grace' });
      const result = await api.request('GET', '/auth/v1/user', { token: session.access_token, headers: withKey });
      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({
        id: session.user.id,
        email: session.user.email,
        role: 'merchant',
        user_metadata: { full_name: 'Grace' },
      });
    });

    it('refuses an expired token, a tampered token and a missing token with 401', async () => {
      const session = await signUp(api);
      const claims = decodeJwt(session.access_token);
      const expired = api.app
        .get(AccessTokenService)
        .sign(
          { id: session.user.id, email: session.user.email, role: 'merchant' },
          String(claims.session_id),
          Math.floor(Date.now() / 1000) - 3601,
        ).token;
      for (const path of ['/auth/v1/user', '/functions/v1/stores']) {
        expect((await api.request('GET', path, { token: expired })).status).toBe(401);
      }
      const [header, , signature] = session.access_token.split('.');
      const forged = Buffer.from(JSON.stringify({ ...claims, role: 'admin' })).toString('base64url');
      const tampered = await api.request('GET', '/functions/v1/stores', { token: `${header}.${forged}.${signature}` });
      expect(tampered.status).toBe(401);
      expect(tampered.body).toMatchObject({ success: false, error: { code: 'UNAUTHENTICATED' } });
      expect((await api.request('GET', '/auth/v1/user')).status).toBe(401);
    });

    it('refuses a wrong apikey even with a valid token', async () => {
      const session = await signUp(api);
      const result = await api.request('GET', '/functions/v1/stores', {
        token: session.access_token,
        headers: { apikey: 'wrong' },
      });
      expect(result.status).toBe(401);
      expect(result.body.error.code).toBe('UNAUTHENTICATED');
    });

    it('answers 401 with a clear message when a store function gets only the public key', async () => {
      const result = await api.request('GET', '/functions/v1/stores', { token: PUBLIC_KEY, headers: withKey });
      expect(result.status).toBe(401);
      expect(result.body.error).toMatchObject({ code: 'UNAUTHENTICATED' });
      expect(result.body.error.message).toMatch(/signed-in user/);
    });
  });

  describe('logout', () => {
    async function twoSessions() {
      const email = uniqueEmail();
      const a = await signUp(api, {}, email);
      const b = (await password(email)).body;
      return { a, b };
    }
    const alive = async (token: string) => (await api.request('GET', '/auth/v1/user', { token })).status === 200;

    it('scope=local ends this session only', async () => {
      const { a, b } = await twoSessions();
      const out = await api.request('POST', '/auth/v1/logout?scope=local', { token: a.access_token });
      expect(out.status).toBe(204);
      expect(await alive(a.access_token)).toBe(false);
      expect(await alive(b.access_token)).toBe(true);
      expect((await refresh(a.refresh_token)).status).toBe(400);
    });

    it('scope=others ends every other session', async () => {
      const { a, b } = await twoSessions();
      expect((await api.request('POST', '/auth/v1/logout?scope=others', { token: a.access_token })).status).toBe(204);
      expect(await alive(a.access_token)).toBe(true);
      expect(await alive(b.access_token)).toBe(false);
    });

    it('scope=global (the default) ends them all', async () => {
      const { a, b } = await twoSessions();
      expect((await api.request('POST', '/auth/v1/logout', { token: a.access_token })).status).toBe(204);
      expect(await alive(a.access_token)).toBe(false);
      expect(await alive(b.access_token)).toBe(false);
    });

    it('refuses an unknown scope', async () => {
      const { a } = await twoSessions();
      expect((await api.request('POST', '/auth/v1/logout?scope=everything', { token: a.access_token })).status).toBe(
        400,
      );
    });
  });
});

describe('the development secrets', () => {
  // Published in the source of earlier versions: anyone could mint an admin token with it.
  const OLD_DEVELOPMENT_SECRET = 'development-only-jwt-secret-change-me-0123456789';

  it('a development app refuses an admin token signed with the old published secret, and accepts its own', async () => {
    const api = await startApp({ NODE_ENV: 'development' });
    try {
      expect(api.settings.developmentSecretsFile).toBeDefined();
      expect(api.settings.get(authConfig).jwtSecret).not.toBe(OLD_DEVELOPMENT_SECRET);
      const session = await signUp(api);
      const claims = { ...decodeJwt(session.access_token), role: 'admin' };
      const sign = (secret: string) =>
        new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(secret));

      const forged = await api.request('GET', '/functions/v1/stores', { token: await sign(OLD_DEVELOPMENT_SECRET) });
      expect(forged.status).toBe(401);
      expect(forged.body).toMatchObject({ success: false, error: { code: 'UNAUTHENTICATED' } });
      expect((await api.request('GET', '/auth/v1/user', { token: await sign(OLD_DEVELOPMENT_SECRET) })).status).toBe(
        401,
      );
      // The same claims under the installation's own secret pass: the refusal is the secret's doing.
      expect(
        (
          await api.request('GET', '/functions/v1/stores', {
            token: await sign(api.settings.get(authConfig).jwtSecret),
          })
        ).status,
      ).toBe(200);
    } finally {
      await api.close();
    }
  });
});
