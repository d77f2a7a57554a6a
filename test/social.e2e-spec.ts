import { createHash, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ScheduledPostWorker, SOCIAL_PLATFORM_DEFINITIONS } from '@app/social';
import { httpConfig } from '@app/core';
import { merchantWithStore, signUp, startApp, uniqueEmail, type TestApp } from './support/app.js';
import { asRequest, SYSTEM_DATA_SOURCE } from './support/database.js';
import {
  callBack,
  connectSandbox,
  eventually,
  linkOf,
  localPath,
  openStart,
  REDIRECT_URL,
  redirectOf,
  startConnect,
} from './support/social.js';

/**
 * Social publishing in SOCIAL_MODE=sandbox: connect through the built-in consent page,
 * accounts, validation, publishing now, scheduling with the Bull worker, cancelling and its race
 * with the worker, idempotency, and two stores that never see each other's accounts or posts.
 */
describe('social publishing (sandbox mode)', () => {
  let api: TestApp;
  let db: DataSource;
  let owner: { token: string; storeId: string };
  let other: { token: string; storeId: string };
  const tokens: Record<string, string> = {};

  const publish = (token: string, body: Record<string, unknown>, headers?: Record<string, string>) =>
    api.request('POST', '/functions/v1/social-publish', { token, body, headers });
  const cancel = (token: string, postId: string) =>
    api.request('DELETE', `/functions/v1/social-publish/${postId}`, { token });
  const posts = (token: string, storeId: string, query = '') =>
    api.request('GET', `/functions/v1/social-posts?store_id=${storeId}${query}`, { token });
  const postStatus = async (id: string) =>
    ((await db.query('SELECT status FROM social_posts WHERE id = $1', [id])) as { status: string }[])[0]?.status;
  const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();

  beforeAll(async () => {
    api = await startApp({
      SOCIAL_MODE: 'sandbox',
      SOCIAL_RETRY_DELAYS_MS: '200,400',
      // Its own Bull queues: a worker of another file's app must not take this file's scheduled posts.
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}social-sandbox:`,
    });
    db = api.app.get<DataSource>(SYSTEM_DATA_SOURCE);
    owner = await merchantWithStore(api, 'Social store');
    other = await merchantWithStore(api, 'Other social store');
    const invite = async (permissions: string[]) => {
      const email = uniqueEmail('member');
      const made = await api.request('POST', `/functions/v1/stores/${owner.storeId}/members`, {
        token: owner.token,
        body: { email, permissions },
      });
      return (await signUp(api, { invite_token: made.body.invite_token }, email)).access_token;
    };
    tokens.socialMember = await invite(['social']);
    tokens.catalogMember = await invite(['catalog']);
    tokens.customer = (await signUp(api, { role: 'customer', store_id: owner.storeId })).access_token;
    for (const platform of ['x', 'threads', 'instagram', 'facebook'])
      await connectSandbox(api, owner.token, owner.storeId, platform);
  });
  afterAll(() => api?.close());

  describe('the platform registry in the database', () => {
    it('social_platforms holds the registry: its ids and display names', async () => {
      const rows = (await db.query('SELECT id, display_name FROM social_platforms ORDER BY id')) as {
        id: string;
        display_name: string;
      }[];
      expect(rows).toEqual(
        SOCIAL_PLATFORM_DEFINITIONS.map((platform) => ({ id: platform.id, display_name: platform.displayName })).sort(
          (a, b) => a.id.localeCompare(b.id),
        ),
      );
    });

    it('a platform column accepts only a registered platform: the foreign keys replace the CHECK lists', async () => {
      const checks = (await db.query(
        `SELECT conrelid::regclass::text AS table_name, contype FROM pg_constraint
          WHERE conrelid IN ('social_connect_states'::regclass, 'social_accounts'::regclass,
            'social_post_results'::regclass)
            AND pg_get_constraintdef(oid) ILIKE '%platform%' AND contype IN ('c', 'f') ORDER BY 1`,
      )) as { table_name: string; contype: string }[];
      expect(checks).toEqual([
        { table_name: 'social_accounts', contype: 'f' },
        { table_name: 'social_connect_states', contype: 'f' },
        { table_name: 'social_post_results', contype: 'f' },
      ]);
      const insert = (platform: string) =>
        db.query(
          `INSERT INTO social_accounts (store_id, platform, platform_account_id, username, access_token_sealed)
           VALUES ($1, $2, 'registry-check', 'registry-check', 'sealed')`,
          [other.storeId, platform],
        );
      await expect(insert('myspace')).rejects.toMatchObject({
        code: '23503',
        constraint: 'social_accounts_platform_fkey',
      });
      await insert('youtube');
      await db.query(`DELETE FROM social_accounts WHERE store_id = $1 AND platform_account_id = 'registry-check'`, [
        other.storeId,
      ]);
    });

    it('requests have no right on social_platforms: not even reading it', async () => {
      for (const statement of [
        'SELECT id FROM social_platforms',
        `INSERT INTO social_platforms (id, display_name) VALUES ('myspace', 'MySpace')`,
        `UPDATE social_platforms SET display_name = 'renamed'`,
        'DELETE FROM social_platforms',
      ]) {
        await expect(
          asRequest(api, owner.token, (query) => query(statement)),
          statement,
        ).rejects.toThrow(/permission denied/);
      }
    });
  });

  describe('connect', () => {
    it(
      'hands out a start URL and a 256-bit state; the start URL binds the browser ' +
        'and sends it on to the consent page, then the callback to redirect_url',
      async () => {
        const { token, storeId } = await merchantWithStore(api, 'Connecting');
        const { auth_url, state } = await startConnect(api, token, storeId, 'x');
        expect(state).toMatch(/^[A-Za-z0-9_-]{43}$/);
        const startUrl = new URL(auth_url);
        expect(`${startUrl.origin}${startUrl.pathname}`).toBe(
          `${api.settings.get(httpConfig).baseUrl}/functions/v1/social-connect/start`,
        );
        expect(startUrl.searchParams.get('state')).toBe(state);

        const opened = await openStart(api, auth_url);
        expect(opened.status).toBe(302);
        // The browser's secret: HttpOnly, SameSite=Lax, only for the connect routes, for the state's 10 minutes.
        const attributes = opened.setCookie!.split('; ');
        expect(attributes[0]).toMatch(/^sf_connect_[0-9a-f]{16}=[A-Za-z0-9_-]{43}$/);
        expect(attributes.slice(1, -1)).toEqual(
          expect.arrayContaining(['Path=/functions/v1/social-connect', 'HttpOnly']),
        );
        expect(attributes).toContain('SameSite=Lax');
        const maxAge = Number(
          attributes.find((attribute) => attribute.startsWith('Max-Age='))!.slice('Max-Age='.length),
        );
        expect(maxAge).toBeGreaterThan(590);
        expect(maxAge).toBeLessThanOrEqual(600);
        // PUBLIC_BASE_URL is http here: no Secure (a browser would drop the cookie).
        expect(attributes).not.toContain('Secure');
        const consentUrl = new URL(opened.location!);
        expect(consentUrl.pathname).toBe('/functions/v1/social-sandbox/authorize');
        expect(consentUrl.searchParams.get('state')).toBe(state);
        // X uses PKCE: an S256 challenge goes to the consent page, the verifier stays on the server.
        expect(consentUrl.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
        expect(consentUrl.searchParams.get('code_challenge_method')).toBe('S256');

        const consent = await fetch(`${api.url}${localPath(opened.location!)}`);
        expect(consent.status).toBe(200);
        const html = await consent.text();
        expect(html).toContain('Sandbox');
        const callback = await callBack(api, linkOf(html, 'allow'), opened.cookie);
        const { url, params } = redirectOf(callback);
        expect(`${url.origin}${url.pathname}`).toBe(REDIRECT_URL);
        expect(params).toEqual({
          platform: 'x',
          status: 'connected',
          account: expect.stringMatching(/^[0-9a-f-]{36}$/),
        });
        // The state is spent, and so is its cookie.
        expect(callback.headers.get('set-cookie')).toMatch(
          new RegExp(`^${opened.cookie!.split('=')[0]}=; Max-Age=0; `),
        );
        expect(await db.query('SELECT 1 FROM social_connect_states WHERE store_id = $1', [storeId])).toHaveLength(0);

        const listed = await api.request('GET', `/functions/v1/social-accounts?store_id=${storeId}`, { token });
        expect(listed.status).toBe(200);
        expect(listed.body.data).toHaveLength(1);
        expect(listed.body.data[0]).toMatchObject({
          id: params.account,
          store_id: storeId,
          platform: 'x',
          status: 'active',
        });
        expect(Object.keys(listed.body.data[0]).filter((key) => /token/.test(key))).toEqual(['token_expires_at']);
        // Tokens are sealed at rest: the stored form is not a usable token.
        const [row] = (await db.query(
          'SELECT access_token_sealed, refresh_token_sealed FROM social_accounts WHERE id = $1',
          [params.account],
        )) as {
          access_token_sealed: string;
          refresh_token_sealed: string;
        }[];
        expect(row.access_token_sealed).toMatch(/^v1\./);
        expect(row.refresh_token_sealed).toMatch(/^v1\./);
      },
    );

    it('a state works once: the same callback again is refused with 400', async () => {
      const { token, storeId } = await merchantWithStore(api, 'Replay');
      const { auth_url } = await startConnect(api, token, storeId, 'threads');
      const opened = await openStart(api, auth_url);
      const allow = linkOf(await (await fetch(`${api.url}${localPath(opened.location!)}`)).text(), 'allow');
      expect(redirectOf(await callBack(api, allow, opened.cookie)).params.status).toBe('connected');
      const again = await callBack(api, allow, opened.cookie);
      expect(again.status).toBe(400);
      expect(again.body.error.details[0].field).toBe('state');
      const made_up = await api.request('GET', `/functions/v1/social-connect/callback?code=x&state=${'a'.repeat(43)}`);
      expect(made_up.status).toBe(400);
      // The start URL of a spent or unknown state is a 400 in the envelope too.
      for (const path of [
        localPath(auth_url),
        `/functions/v1/social-connect/start?state=${'a'.repeat(43)}`,
        '/functions/v1/social-connect/start',
      ]) {
        const refused = await api.request('GET', path);
        expect(refused.status, path).toBe(400);
        expect(refused.body.error.details[0].field, path).toBe('state');
        expect(refused.headers.get('set-cookie'), path).toBeNull();
      }
    });

    it(
      'the callback in another browser (no cookie, or another one) ' +
        '→ error=browser_mismatch, nothing attached, the state spent',
      async () => {
        const { token, storeId } = await merchantWithStore(api, 'Forwarded');
        for (const stranger of [null, 'forged']) {
          const { auth_url } = await startConnect(api, token, storeId, 'x');
          const opened = await openStart(api, auth_url);
          // The consent URL reaches someone else, who consents in their own browser.
          const allow = linkOf(await (await fetch(`${api.url}${localPath(opened.location!)}`)).text(), 'allow');
          const cookie = stranger === null ? null : `${opened.cookie!.split('=')[0]}=${'A'.repeat(43)}`;
          const { params } = redirectOf(await callBack(api, allow, cookie));
          expect(params).toEqual({ platform: 'x', status: 'error', error: 'browser_mismatch' });
          expect(await db.query('SELECT 1 FROM social_accounts WHERE store_id = $1', [storeId])).toHaveLength(0);
          // Spent: not even the browser that started it can finish it now.
          expect((await callBack(api, allow, opened.cookie)).status).toBe(400);
        }
        // A cookie of another state (another connect of the same browser) does not open this one.
        const first = await openStart(api, (await startConnect(api, token, storeId, 'threads')).auth_url);
        const second = await openStart(api, (await startConnect(api, token, storeId, 'facebook')).auth_url);
        const allowSecond = linkOf(await (await fetch(`${api.url}${localPath(second.location!)}`)).text(), 'allow');
        const swapped = `${second.cookie!.split('=')[0]}=${first.cookie!.split('=')[1]}`;
        expect(redirectOf(await callBack(api, allowSecond, swapped)).params.error).toBe('browser_mismatch');
        // The first one still completes in its own browser.
        const allowFirst = linkOf(await (await fetch(`${api.url}${localPath(first.location!)}`)).text(), 'allow');
        expect(redirectOf(await callBack(api, allowFirst, first.cookie)).params.status).toBe('connected');
        const platforms = (await db.query('SELECT platform FROM social_accounts WHERE store_id = $1', [storeId])) as {
          platform: string;
        }[];
        expect(platforms.map((row) => row.platform)).toEqual(['threads']);
      },
    );

    it(
      'the start URL binds the first browser only: a second ' +
        'open is sent back with error=already_started, no cookie',
      async () => {
        const { token, storeId } = await merchantWithStore(api, 'Opened twice');
        const { auth_url } = await startConnect(api, token, storeId, 'threads');
        const first = await openStart(api, auth_url);
        expect(first.cookie).toBeTruthy();
        const second = await openStart(api, auth_url);
        expect(second.setCookie).toBeNull();
        const { url, params } = redirectOf(second);
        expect(`${url.origin}${url.pathname}`).toBe(REDIRECT_URL);
        expect(params).toEqual({ platform: 'threads', status: 'error', error: 'already_started' });
        // Two browsers opening it at once: one is bound, the other refused.
        const { auth_url: raced } = await startConnect(api, token, storeId, 'facebook');
        const both = await Promise.all([openStart(api, raced), openStart(api, raced)]);
        expect(both.filter((opened) => opened.cookie !== null)).toHaveLength(1);
        expect(both.filter((opened) => opened.location?.includes('error=already_started'))).toHaveLength(1);
        // The first browser still finishes.
        const allow = linkOf(await (await fetch(`${api.url}${localPath(first.location!)}`)).text(), 'allow');
        expect(redirectOf(await callBack(api, allow, first.cookie)).params).toMatchObject({
          platform: 'threads',
          status: 'connected',
        });
      },
    );

    it(
      'an expired state (over 10 minutes) goes back to ' + 'redirect_url with status=error and connects nothing',
      async () => {
        const { token, storeId } = await merchantWithStore(api, 'Late');
        const { auth_url } = await startConnect(api, token, storeId, 'facebook');
        const opened = await openStart(api, auth_url);
        const allow = linkOf(await (await fetch(`${api.url}${localPath(opened.location!)}`)).text(), 'allow');
        await db.query(
          `UPDATE social_connect_states SET expires_at = now() - interval '1 second' WHERE store_id = $1`,
          [storeId],
        );
        expect(redirectOf(await callBack(api, allow, opened.cookie)).params).toEqual({
          platform: 'facebook',
          status: 'error',
          error: 'expired_state',
        });
        expect(await db.query('SELECT 1 FROM social_accounts WHERE store_id = $1', [storeId])).toHaveLength(0);
        // Expired before its start URL is opened: sent back without a cookie.
        const late = await startConnect(api, token, storeId, 'facebook');
        await db.query(
          `UPDATE social_connect_states SET expires_at = now() - interval '1 second' WHERE store_id = $1`,
          [storeId],
        );
        const tooLate = await openStart(api, late.auth_url);
        expect(tooLate.setCookie).toBeNull();
        expect(new URL(tooLate.location!).searchParams.get('error')).toBe('expired_state');
      },
    );

    it('a denied consent goes back with status=error&error=access_denied, and spends the state', async () => {
      const { token, storeId } = await merchantWithStore(api, 'Denied');
      const { auth_url } = await startConnect(api, token, storeId, 'youtube');
      const opened = await openStart(api, auth_url);
      const deny = linkOf(await (await fetch(`${api.url}${localPath(opened.location!)}`)).text(), 'deny');
      expect(redirectOf(await callBack(api, deny, opened.cookie)).params).toEqual({
        platform: 'youtube',
        status: 'error',
        error: 'access_denied',
      });
      expect(await db.query('SELECT 1 FROM social_connect_states WHERE store_id = $1', [storeId])).toHaveLength(0);
    });

    it('a verifier that does not match the challenge is refused (PKCE)', async () => {
      const { token, storeId } = await merchantWithStore(api, 'Pkce');
      const { auth_url, state } = await startConnect(api, token, storeId, 'x');
      const opened = await openStart(api, auth_url);
      const forged = new URL(opened.location!);
      forged.searchParams.set('code_challenge', 'A'.repeat(43));
      const allow = new URL(linkOf(await (await fetch(`${api.url}${localPath(forged.toString())}`)).text(), 'allow'));
      expect(allow.searchParams.get('state')).toBe(state);
      expect(redirectOf(await callBack(api, allow.toString(), opened.cookie)).params.status).toBe('error');
      expect(await db.query('SELECT 1 FROM social_accounts WHERE store_id = $1', [storeId])).toHaveLength(0);
    });

    it(
      'the accounts land in their own stores through the request ' +
        "role's definer functions; a request cannot forge its way in",
      async () => {
        const one = await merchantWithStore(api, 'Definer one');
        const two = await merchantWithStore(api, 'Definer two');
        // Both connects are under way at once, each in its merchant's browser.
        const started = await Promise.all(
          [one, two].map(async (merchant) => {
            const { auth_url, state } = await startConnect(api, merchant.token, merchant.storeId, 'threads');
            const opened = await openStart(api, auth_url);
            return {
              merchant,
              state,
              opened,
              allow: linkOf(await (await fetch(`${api.url}${localPath(opened.location!)}`)).text(), 'allow'),
            };
          }),
        );
        // What the start stored: the hash of the browser's secret, never the secret.
        const [bound] = (await db.query(
          'SELECT browser_hash, started_at FROM social_connect_states WHERE store_id = $1',
          [one.storeId],
        )) as {
          browser_hash: string;
          started_at: Date | null;
        }[];
        const secretOne = started[0].opened.cookie!.split('=')[1];
        expect(bound.browser_hash).toBe(createHash('sha256').update(secretOne).digest('hex'));
        expect(bound.started_at).not.toBeNull();

        // A customer's request (an injection there, say) calls the functions with forged or real hashes.
        const customer = (await signUp(api, { role: 'customer', store_id: one.storeId })).access_token;
        const stateHash = createHash('sha256').update(started[0].state).digest('hex');
        const account = ['1', 'forged', null, 'v1.forged', null, null, ['sandbox']];
        const forged = await asRequest(api, customer, async (q) => ({
          completed: await q('SELECT app_complete_connect($1, $2, $3, $4, $5, $6, $7, $8, $9) AS id', [
            'f'.repeat(64),
            'x'.repeat(43),
            ...account,
          ]),
          // The real state, not taken: nothing to complete.
          notTaken: await q('SELECT app_complete_connect($1, $2, $3, $4, $5, $6, $7, $8, $9) AS id', [
            stateHash,
            'x'.repeat(43),
            ...account,
          ]),
          started: await q('SELECT * FROM app_start_connect($1, $2)', ['f'.repeat(64), 'y'.repeat(43)]),
          taken: await q('SELECT * FROM app_take_connect_state($1, $2, $3)', [
            'f'.repeat(64),
            'y'.repeat(43),
            'x'.repeat(43),
          ]),
        }));
        expect(forged).toEqual({ completed: [{ id: null }], notTaken: [{ id: null }], started: [], taken: [] });
        // Requests cannot read the states, nor write a browser or a take into one.
        await expect(asRequest(api, customer, (q) => q('SELECT * FROM social_connect_states'))).rejects.toThrow(
          /permission denied/,
        );
        await expect(
          asRequest(api, one.token, (q) =>
            q(
              `INSERT INTO social_connect_states (state_hash, store_id, user_id, platform, redirect_url, expires_at,
                browser_hash, taken_at)
             VALUES ('h', $1, $2, 'x', $3, now() + interval '1 minute', 'b', now())`,
              [one.storeId, one.session.user.id, REDIRECT_URL],
            ),
          ),
        ).rejects.toThrow(/permission denied/);
        expect(await db.query('SELECT 1 FROM social_accounts WHERE store_id = $1', [one.storeId])).toHaveLength(0);

        // Taken by its own browser (with a completion the taker chose), the state completes only with that completion.
        const completion = 'c'.repeat(43);
        const [taken] = await asRequest(api, customer, (q) =>
          q('SELECT outcome, store_id FROM app_take_connect_state($1, $2, $3)', [stateHash, secretOne, completion]),
        );
        expect(taken).toEqual({ outcome: 'taken', store_id: one.storeId });
        const wrong = await asRequest(api, customer, (q) =>
          q('SELECT app_complete_connect($1, $2, $3, $4, $5, $6, $7, $8, $9) AS id', [
            stateHash,
            'd'.repeat(43),
            ...account,
          ]),
        );
        expect(wrong).toEqual([{ id: null }]);
        expect(await db.query('SELECT 1 FROM social_accounts WHERE store_id = $1', [one.storeId])).toHaveLength(0);
        // The right completion attaches the account to the state's store and platform, whoever calls, once.
        const [right] = await asRequest(api, customer, (q) =>
          q('SELECT app_complete_connect($1, $2, $3, $4, $5, $6, $7, $8, $9) AS id', [
            stateHash,
            completion,
            ...account,
          ]),
        );
        const [attached] = (await db.query(
          'SELECT id, store_id, platform, username, connected_by FROM social_accounts WHERE id = $1',
          [right.id],
        )) as Record<string, string>[];
        expect(attached).toEqual({
          id: right.id,
          store_id: one.storeId,
          platform: 'threads',
          username: 'forged',
          connected_by: one.session.user.id,
        });
        const again = await asRequest(api, customer, (q) =>
          q('SELECT app_complete_connect($1, $2, $3, $4, $5, $6, $7, $8, $9) AS id', [
            stateHash,
            completion,
            ...account,
          ]),
        );
        expect(again).toEqual([{ id: null }]);
        // The browser coming back afterwards finds its state used.
        expect((await callBack(api, started[0].allow, started[0].opened.cookie)).status).toBe(400);

        // The other merchant's connect goes through the HTTP callback and lands in its own store.
        const { params } = redirectOf(await callBack(api, started[1].allow, started[1].opened.cookie));
        expect(params.status).toBe('connected');
        const [landed] = (await db.query('SELECT store_id, connected_by FROM social_accounts WHERE id = $1', [
          params.account,
        ])) as Record<string, string>[];
        expect(landed).toEqual({ store_id: two.storeId, connected_by: two.session.user.id });
      },
    );

    it('redirect_url off the allow-list → 400; the sandbox consent page only returns to this service', async () => {
      const evil = await api.request('POST', '/functions/v1/social-connect', {
        token: owner.token,
        body: { platform: 'x', store_id: owner.storeId, redirect_url: 'https://evil.example.com/steal' },
      });
      expect(evil.status).toBe(400);
      expect(evil.body.error.details[0].field).toBe('redirect_url');
      const { auth_url } = await startConnect(api, owner.token, owner.storeId, 'x');
      const elsewhere = new URL((await openStart(api, auth_url)).location!);
      elsewhere.searchParams.set('redirect_uri', 'https://evil.example.com/callback');
      expect((await fetch(`${api.url}${localPath(elsewhere.toString())}`)).status).toBe(400);
    });

    it(
      'access: another store 404, a customer 403, a member ' + 'without social 403, with social 200; anon 401',
      async () => {
        const body = (token?: string) => ({
          token,
          body: { platform: 'x', store_id: owner.storeId, redirect_url: REDIRECT_URL },
        });
        expect((await api.request('POST', '/functions/v1/social-connect', body(other.token))).status).toBe(404);
        expect((await api.request('POST', '/functions/v1/social-connect', body(tokens.customer))).status).toBe(403);
        expect((await api.request('POST', '/functions/v1/social-connect', body(tokens.catalogMember))).status).toBe(
          403,
        );
        expect((await api.request('POST', '/functions/v1/social-connect', body(tokens.socialMember))).status).toBe(200);
        expect((await api.request('POST', '/functions/v1/social-connect', body())).status).toBe(401);
        const bad = await api.request('POST', '/functions/v1/social-connect', {
          token: owner.token,
          body: { platform: 'myspace', store_id: owner.storeId, redirect_url: 'not a url' },
        });
        expect(bad.status).toBe(400);
        expect(bad.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
          'platform',
          'redirect_url',
        ]);
      },
    );

    it(
      "accounts: another store's list 404 and its account " + 'cannot be disconnected (404); the owner disconnects',
      async () => {
        const { token, storeId } = await merchantWithStore(api, 'Disconnecting');
        const accountId = await connectSandbox(api, token, storeId, 'threads');
        expect(
          (await api.request('GET', `/functions/v1/social-accounts?store_id=${storeId}`, { token: other.token }))
            .status,
        ).toBe(404);
        expect(
          (await api.request('DELETE', `/functions/v1/social-accounts/${accountId}`, { token: other.token })).status,
        ).toBe(404);
        const gone = await api.request('DELETE', `/functions/v1/social-accounts/${accountId}`, { token });
        expect(gone.body).toEqual({ success: true, message: 'Social account disconnected' });
        expect((await api.request('DELETE', `/functions/v1/social-accounts/${accountId}`, { token })).status).toBe(404);
        const after = await publish(token, { store_id: storeId, platforms: ['threads'], content: { text: 'hello' } });
        expect(after.status).toBe(400);
        expect(after.body.error.details).toEqual([
          { field: 'platforms', platform: 'threads', message: 'Threads is not connected to this store' },
        ]);
      },
    );

    it('connecting a platform again replaces its account', async () => {
      const { token, storeId } = await merchantWithStore(api, 'Again');
      const first = await connectSandbox(api, token, storeId, 'x');
      const second = await connectSandbox(api, token, storeId, 'x');
      expect(second).toBe(first);
      expect(await db.query('SELECT 1 FROM social_accounts WHERE store_id = $1', [storeId])).toHaveLength(1);
    });
  });

  describe('publish now', () => {
    it('publishes to each platform: platform-prefixed ids and sandbox URLs, in the order asked', async () => {
      const result = await publish(owner.token, {
        store_id: owner.storeId,
        platforms: ['threads', 'x'],
        content: { text: 'New mugs in store ☕', link: 'https://shop.example.com/mugs' },
      });
      expect(result.status).toBe(200);
      expect(result.body.success).toBe(true);
      expect(result.body.results.map((r: { platform: string }) => r.platform)).toEqual(['threads', 'x']);
      for (const item of result.body.results) {
        expect(item.status).toBe('published');
        expect(item.post_id).toMatch(new RegExp(`^${item.platform}_\\d+$`));
        expect(item.url).toContain('sandbox');
      }
      const page = await fetch(`${api.url}${localPath(result.body.results[1].url)}`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('New mugs in store ☕');
      const history = await posts(owner.token, owner.storeId, '&status=published&limit=1');
      expect(history.body.data[0]).toMatchObject({ status: 'published', platforms: ['threads', 'x'], attempts: 1 });
      expect(history.body.data[0].results.map((r: { post_id: string }) => r.post_id).sort()).toEqual(
        result.body.results.map((r: { post_id: string }) => r.post_id).sort(),
      );
    });

    it(
      'validates every platform first: X 281 weighted characters ' +
        'and Instagram without media → 400 per platform, nothing sent',
      async () => {
        const before = (
          await db.query('SELECT count(*)::int AS n FROM social_posts WHERE store_id = $1', [owner.storeId])
        )[0].n;
        // 257 letters, a space and a URL (23) = 281 weighted characters.
        const text = `${'a'.repeat(257)} https://shop.example.com/a/very/long/path/that/still/counts/as/twenty/three`;
        const refused = await publish(owner.token, {
          store_id: owner.storeId,
          platforms: ['x', 'instagram', 'threads'],
          content: { text },
        });
        expect(refused.status).toBe(400);
        expect(refused.body.error.code).toBe('VALIDATION_FAILED');
        const platforms = refused.body.error.details.map((d: { platform: string }) => d.platform);
        expect(platforms.sort()).toEqual(['instagram', 'x']);
        expect(
          (await db.query('SELECT count(*)::int AS n FROM social_posts WHERE store_id = $1', [owner.storeId]))[0].n,
        ).toBe(before);
        // One character less fits X.
        const fits = await publish(owner.token, {
          store_id: owner.storeId,
          platforms: ['x'],
          content: { text: text.slice(1) },
        });
        expect(fits.status).toBe(200);
        expect(fits.body.results[0].status).toBe('published');
      },
    );

    it('a platform not connected for the store is a 400 naming it', async () => {
      const result = await publish(owner.token, {
        store_id: owner.storeId,
        platforms: ['tiktok'],
        content: { text: 'hi', media: [{ type: 'video', url: 'https://cdn.example.com/v.mp4' }] },
      });
      expect(result.status).toBe(400);
      expect(result.body.error.details).toEqual([
        { field: 'platforms', platform: 'tiktok', message: 'TikTok is not connected to this store' },
      ]);
    });

    it('refuses bad bodies: unknown or repeated platforms, media type and URL, a past or far schedule_at', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ platforms: ['x', 'x'], content: { text: 'a' } }, 'platforms'],
        [{ platforms: ['friendster'], content: { text: 'a' } }, 'platforms'],
        [{ platforms: [], content: { text: 'a' } }, 'platforms'],
        [
          { platforms: ['x'], content: { text: 'a', media: [{ type: 'gif', url: 'https://x.example/a.gif' }] } },
          'content.media.0.type',
        ],
        [
          { platforms: ['x'], content: { text: 'a', media: [{ type: 'image', url: 'ftp://x.example/a.png' }] } },
          'content.media.0.url',
        ],
        [{ platforms: ['x'], content: { text: 'a' }, schedule_at: '2020-01-01T00:00:00Z' }, 'schedule_at'],
        [{ platforms: ['x'], content: { text: 'a' }, schedule_at: inSeconds(400 * 24 * 3600) }, 'schedule_at'],
        [{ platforms: ['x'], content: { text: 'a' }, schedule_at: 'tomorrow' }, 'schedule_at'],
        [{ platforms: ['x'] }, 'content'],
      ];
      for (const [body, field] of cases) {
        const result = await publish(owner.token, { store_id: owner.storeId, ...body });
        expect(result.status, JSON.stringify(body)).toBe(400);
        expect(result.body.error.details[0].field, JSON.stringify(body)).toBe(field);
      }
    });

    it('Idempotency-Key: the same key answers the first result again and publishes once', async () => {
      const body = { store_id: owner.storeId, platforms: ['facebook'], content: { text: `Once only ${randomUUID()}` } };
      const headers = { 'idempotency-key': `publish-${randomUUID()}` };
      const first = await publish(owner.token, body, headers);
      const again = await publish(owner.token, body, headers);
      expect(first.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      const rows = await db.query(`SELECT 1 FROM social_posts WHERE store_id = $1 AND content->>'text' = $2`, [
        owner.storeId,
        body.content.text,
      ]);
      expect(rows).toHaveLength(1);
    });

    it(
      'access: another store 404, a customer 403, a member ' + 'without social 403, a member with it publishes',
      async () => {
        const body = { store_id: owner.storeId, platforms: ['x'], content: { text: 'from a member' } };
        expect((await publish(other.token, body)).status).toBe(404);
        expect((await publish(tokens.customer, body)).status).toBe(403);
        expect((await publish(tokens.catalogMember, body)).status).toBe(403);
        expect((await publish(tokens.socialMember, body)).status).toBe(200);
        expect((await posts(other.token, owner.storeId)).status).toBe(404);
        const mine = await posts(other.token, other.storeId);
        expect(mine.body.data).toEqual([]);
      },
    );
  });

  describe('schedule and cancel', () => {
    it('a scheduled post is published by the worker at its time', async () => {
      const at = inSeconds(2.5);
      const result = await publish(owner.token, {
        store_id: owner.storeId,
        platforms: ['x', 'threads'],
        content: { text: 'Later!' },
        schedule_at: at,
      });
      expect(result.status).toBe(200);
      const postId = result.body.results[0].post_id;
      expect(result.body.results).toEqual([
        { platform: 'x', status: 'scheduled', post_id: postId, url: null, scheduled_at: new Date(at).toISOString() },
        {
          platform: 'threads',
          status: 'scheduled',
          post_id: postId,
          url: null,
          scheduled_at: new Date(at).toISOString(),
        },
      ]);
      expect(await postStatus(postId)).toBe('scheduled');
      const listed = await posts(owner.token, owner.storeId, '&status=scheduled');
      expect(listed.body.data.map((p: { id: string }) => p.id)).toContain(postId);

      await eventually(async () => (await postStatus(postId)) === 'published');
      const [published] = (await db.query(
        `SELECT min(r.published_at) AS first FROM social_post_results ` +
          `r WHERE r.post_id = $1 AND r.status = 'published'`,
        [postId],
      )) as { first: Date }[];
      expect(new Date(published.first).getTime()).toBeGreaterThanOrEqual(new Date(at).getTime() - 1000);
      const history = (await posts(owner.token, owner.storeId, '&status=published')).body.data.find(
        (p: { id: string }) => p.id === postId,
      );
      expect(history.results.map((r: { status: string }) => r.status)).toEqual(['published', 'published']);
      // Too late to cancel.
      const late = await cancel(owner.token, postId);
      expect(late.status).toBe(409);
      expect(late.body.error.code).toBe('NOT_CANCELLABLE');
    });

    it('cancelled before its time, a post is never published, even when its job fires', async () => {
      const result = await publish(owner.token, {
        store_id: owner.storeId,
        platforms: ['x'],
        content: { text: 'Never' },
        schedule_at: inSeconds(3600),
      });
      const postId = result.body.results[0].post_id;
      const cancelled = await cancel(owner.token, postId);
      expect(cancelled.status).toBe(200);
      expect(cancelled.body).toEqual({ success: true, message: 'Scheduled post cancelled' });
      // Its time comes and a job fires anyway (a duplicate, or one the sweep found): nothing to publish.
      await db.query(`UPDATE social_posts SET scheduled_at = now() - interval '1 second' WHERE id = $1`, [postId]);
      await api.app.get(ScheduledPostWorker).publish(postId);
      expect(await postStatus(postId)).toBe('cancelled');
      const results = (await db.query('SELECT status, platform_post_id FROM social_post_results WHERE post_id = $1', [
        postId,
      ])) as {
        status: string;
        platform_post_id: string | null;
      }[];
      expect(results).toEqual([{ status: 'cancelled', platform_post_id: null }]);
      expect((await cancel(owner.token, postId)).status).toBe(409);
    });

    it("another store's post → 404, unknown → 404, not a UUID → 400; a member without social 403", async () => {
      const result = await publish(owner.token, {
        store_id: owner.storeId,
        platforms: ['x'],
        content: { text: 'Mine' },
        schedule_at: inSeconds(3600),
      });
      const postId = result.body.results[0].post_id;
      expect((await cancel(other.token, postId)).status).toBe(404);
      expect((await cancel(tokens.catalogMember, postId)).status).toBe(403);
      expect((await cancel(tokens.customer, postId)).status).toBe(404);
      expect((await cancel(owner.token, randomUUID())).status).toBe(404);
      expect((await cancel(owner.token, 'nope')).status).toBe(400);
      expect(await postStatus(postId)).toBe('scheduled');
      expect((await cancel(tokens.socialMember, postId)).status).toBe(200);
    });

    it('a cancel racing the worker never yields both: each post is either cancelled or published', async () => {
      const worker = api.app.get(ScheduledPostWorker);
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) {
        const result = await publish(owner.token, {
          store_id: owner.storeId,
          platforms: ['x'],
          content: { text: `Race ${i}` },
          schedule_at: inSeconds(3600),
        });
        ids.push(result.body.results[0].post_id);
      }
      // Their time has come: the worker's claim and the merchant's cancel go for each post at once.
      await db.query(`UPDATE social_posts SET scheduled_at = now() WHERE id = ANY($1::uuid[])`, [ids]);
      const outcomes = await Promise.all(
        ids.map(async (id) => ({ id, work: await Promise.all([cancel(owner.token, id), worker.publish(id)]) })),
      );
      for (const { id, work } of outcomes) {
        const [cancelled] = work;
        await eventually(async () => ['cancelled', 'published'].includes((await postStatus(id)) ?? ''));
        const status = await postStatus(id);
        const published = (
          await db.query(`SELECT 1 FROM social_post_results WHERE post_id = $1 AND status = 'published'`, [id])
        ).length;
        if (cancelled.status === 200) {
          expect([status, published]).toEqual(['cancelled', 0]);
        } else {
          expect(cancelled.status).toBe(409);
          expect([status, published]).toEqual(['published', 1]);
        }
      }
    });

    it('the sweep enqueues a due post whose job was lost', async () => {
      const result = await publish(owner.token, {
        store_id: owner.storeId,
        platforms: ['threads'],
        content: { text: 'Lost job' },
        schedule_at: inSeconds(3600),
      });
      const postId = result.body.results[0].post_id;
      // The job vanishes (Redis flushed) and the time has long passed.
      await api.app.get(ScheduledPostWorker)['queue'].remove(postId, 1);
      await db.query(`UPDATE social_posts SET scheduled_at = now() - interval '5 minutes' WHERE id = $1`, [postId]);
      await api.app.get(ScheduledPostWorker).sweep();
      await eventually(async () => (await postStatus(postId)) === 'published');
    });
  });
});
