import { PUBLIC_KEY, signUp, startApp, uniqueEmail, type TestApp, TEST_ADMIN } from './support/app.js';
import { SYSTEM_DATA_SOURCE } from './support/database.js';

/**
 * The role × route matrix of stores and members: every role on its own store and on another
 * tenant's store. Another tenant's store always answers 404, never revealing it exists.
 */
describe('stores and members: roles and tenancy', () => {
  let api: TestApp;
  const tokens: Record<'ownerA' | 'ownerB' | 'member' | 'customer' | 'admin', string> = {} as never;
  let storeA: string;
  let storeB: string;
  let memberId: string;
  const adminEmail = TEST_ADMIN.email;

  const call = (who: keyof typeof tokens, method: string, path: string, body?: unknown) =>
    api.request(method, `/functions/v1${path}`, { token: tokens[who], body });

  beforeAll(async () => {
    api = await startApp({ ADMIN_EMAIL: adminEmail, ADMIN_PASSWORD: TEST_ADMIN.password });
    tokens.ownerA = (await signUp(api)).access_token;
    tokens.ownerB = (await signUp(api)).access_token;
    storeA = (await call('ownerA', 'POST', '/stores', { name: 'Store A' })).body.store.id;
    storeB = (await call('ownerB', 'POST', '/stores', { name: 'Store B', currency: 'eur', timezone: 'Europe/Paris' }))
      .body.store.id;
    const memberEmail = uniqueEmail('member');
    const invite = await call('ownerA', 'POST', `/stores/${storeA}/members`, {
      email: memberEmail,
      permissions: ['catalog'],
    });
    memberId = invite.body.member.id;
    tokens.member = (await signUp(api, { invite_token: invite.body.invite_token }, memberEmail)).access_token;
    tokens.customer = (await signUp(api, { role: 'customer', store_id: storeA })).access_token;
    const admin = await api.request('POST', '/auth/v1/token?grant_type=password', {
      headers: { apikey: PUBLIC_KEY },
      body: { email: adminEmail, password: TEST_ADMIN.password },
    });
    tokens.admin = admin.body.access_token;
  });
  afterAll(() => api.close());

  describe('POST /stores', () => {
    it.each([
      ['ownerA', 201],
      ['admin', 201],
      ['member', 403],
      ['customer', 403],
    ] as const)('%s → %i', async (who, status) => {
      const result = await call(who, 'POST', '/stores', { name: `By ${who}` });
      expect(result.status).toBe(status);
      if (status === 201)
        expect(result.body).toMatchObject({
          success: true,
          store: { name: `By ${who}`, currency: 'USD', default_language: 'en', timezone: 'UTC' },
        });
      else expect(result.body).toMatchObject({ success: false, error: { code: 'FORBIDDEN' } });
    });

    it('normalises and validates the fields', async () => {
      const made = await call('ownerB', 'POST', '/stores', {
        name: '  Trimmed  ',
        currency: 'gbp',
        default_language: 'pt-BR',
        timezone: 'America/Sao_Paulo',
      });
      expect(made.body.store).toMatchObject({
        name: 'Trimmed',
        currency: 'GBP',
        default_language: 'pt-BR',
        timezone: 'America/Sao_Paulo',
      });
      const bad = await call('ownerB', 'POST', '/stores', {
        name: 'x',
        currency: 'ABCD',
        default_language: 'not a tag',
        timezone: 'Mars/Olympus',
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
        'currency',
        'default_language',
        'timezone',
      ]);
    });
  });

  it('GET /stores lists only what each caller may see', async () => {
    const ids = async (who: keyof typeof tokens) =>
      (await call(who, 'GET', '/stores?limit=100')).body.data.map((s: { id: string }) => s.id);
    expect(await ids('ownerA')).toContain(storeA);
    expect(await ids('ownerA')).not.toContain(storeB);
    expect(await ids('ownerB')).not.toContain(storeA);
    expect(await ids('member')).toEqual([storeA]);
    expect(await ids('customer')).toEqual([storeA]);
    expect(await ids('admin')).toEqual(expect.arrayContaining([storeA, storeB]));
  });

  it('GET /stores pages with limit and next_cursor', async () => {
    const owner = (await signUp(api)).access_token;
    for (const name of ['one', 'two', 'three'])
      await api.request('POST', '/functions/v1/stores', { token: owner, body: { name } });
    const first = await api.request('GET', '/functions/v1/stores?limit=2', { token: owner });
    expect(first.body.data.map((s: { name: string }) => s.name)).toEqual(['three', 'two']);
    const second = await api.request('GET', `/functions/v1/stores?limit=2&cursor=${first.body.next_cursor}`, {
      token: owner,
    });
    expect(second.body.data.map((s: { name: string }) => s.name)).toEqual(['one']);
    expect(second.body.next_cursor).toBeNull();
    expect((await api.request('GET', '/functions/v1/stores?limit=0', { token: owner })).status).toBe(400);
    expect((await api.request('GET', '/functions/v1/stores?limit=101', { token: owner })).status).toBe(400);
    expect((await api.request('GET', '/functions/v1/stores?cursor=garbage', { token: owner })).status).toBe(400);
  });

  it.each([
    ['ownerA', 200],
    ['member', 200],
    ['customer', 200],
    ['admin', 200],
    ['ownerB', 404],
  ] as const)('GET /stores/A as %s → %i', async (who, status) => {
    const result = await call(who, 'GET', `/stores/${storeA}`);
    expect(result.status).toBe(status);
    if (status === 200) expect(result.body.store.id).toBe(storeA);
    else expect(result.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: 'Store not found' } });
  });

  it.each(['member', 'customer'] as const)('GET /stores/B as A-side %s → 404', async (who) => {
    expect((await call(who, 'GET', `/stores/${storeB}`)).status).toBe(404);
  });

  it('a store id that does not exist answers 404 like another tenant’s, a malformed one 400', async () => {
    expect((await call('ownerA', 'GET', '/stores/3f0e1d2c-4b5a-4697-8a8b-9c0d1e2f3a4b')).body.error.code).toBe(
      'NOT_FOUND',
    );
    expect((await call('ownerA', 'GET', '/stores/not-a-uuid')).status).toBe(400);
  });

  it.each([
    ['ownerA', 200],
    ['admin', 200],
    ['member', 403],
    ['customer', 403],
    ['ownerB', 404],
  ] as const)('PATCH /stores/A as %s → %i', async (who, status) => {
    const result = await call(who, 'PATCH', `/stores/${storeA}`, { name: `Renamed by ${who}` });
    expect(result.status).toBe(status);
    if (status === 200) expect(result.body.store.name).toBe(`Renamed by ${who}`);
  });

  it('PATCH refuses unknown fields and another owner', async () => {
    const unknown = await call('ownerA', 'PATCH', `/stores/${storeA}`, {
      owner_id: '3f0e1d2c-4b5a-4697-8a8b-9c0d1e2f3a4b',
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details).toEqual([{ field: 'owner_id', message: 'is not a known field' }]);
  });

  describe('members', () => {
    it.each([
      ['ownerA', 201],
      ['admin', 201],
      ['member', 403],
      ['customer', 403],
      ['ownerB', 404],
    ] as const)('POST /stores/A/members as %s → %i', async (who, status) => {
      const result = await call(who, 'POST', `/stores/${storeA}/members`, {
        email: uniqueEmail(),
        permissions: ['orders'],
      });
      expect(result.status).toBe(status);
      if (status === 201) {
        expect(result.body.member).toMatchObject({
          store_id: storeA,
          status: 'invited',
          permissions: ['orders'],
          user_id: null,
        });
        expect(result.body.invite_token.length).toBeGreaterThanOrEqual(43);
      }
    });

    it('refuses unknown permissions and a second invitation of the same e-mail', async () => {
      const bad = await call('ownerA', 'POST', `/stores/${storeA}/members`, {
        email: uniqueEmail(),
        permissions: ['catalog', 'root'],
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error.details[0].field).toBe('permissions');
      const email = uniqueEmail();
      expect((await call('ownerA', 'POST', `/stores/${storeA}/members`, { email, permissions: [] })).status).toBe(201);
      const twice = await call('ownerA', 'POST', `/stores/${storeA}/members`, {
        email: email.toUpperCase(),
        permissions: [],
      });
      expect(twice.status).toBe(409);
      expect(twice.body.error.code).toBe('CONFLICT');
    });

    it('lists members to the owner only', async () => {
      const list = await call('ownerA', 'GET', `/stores/${storeA}/members`);
      expect(list.status).toBe(200);
      expect(list.body.data.find((m: { id: string }) => m.id === memberId)).toMatchObject({
        status: 'active',
        permissions: ['catalog'],
      });
      expect((await call('member', 'GET', `/stores/${storeA}/members`)).status).toBe(403);
      expect((await call('ownerB', 'GET', `/stores/${storeA}/members`)).status).toBe(404);
    });

    it('updates permissions; another store’s member id answers 404', async () => {
      const updated = await call('ownerA', 'PATCH', `/stores/${storeA}/members/${memberId}`, {
        permissions: ['catalog', 'orders'],
      });
      expect(updated.status).toBe(200);
      expect(updated.body.member.permissions).toEqual(['catalog', 'orders']);
      expect((await call('ownerB', 'PATCH', `/stores/${storeB}/members/${memberId}`, { permissions: [] })).status).toBe(
        404,
      );
      expect((await call('ownerB', 'PATCH', `/stores/${storeA}/members/${memberId}`, { permissions: [] })).status).toBe(
        404,
      );
      expect(
        (await call('member', 'PATCH', `/stores/${storeA}/members/${memberId}`, { permissions: ['webhooks'] })).status,
      ).toBe(403);
    });

    it('invitations: wrong e-mail, reuse and expiry are refused', async () => {
      const email = uniqueEmail('invitee');
      const invite = await call('ownerA', 'POST', `/stores/${storeA}/members`, { email, permissions: ['ai'] });
      const signup = (address: string, token: string) =>
        api.request('POST', '/auth/v1/signup', {
          headers: { apikey: PUBLIC_KEY },
          body: { email: address, password: 'correct horse battery', data: { invite_token: token } },
        });
      const wrongEmail = await signup(uniqueEmail('other'), invite.body.invite_token);
      expect(wrongEmail.status).toBe(400);
      expect(wrongEmail.body.error_code).toBe('invite_not_found');
      const accepted = await signup(email, invite.body.invite_token);
      expect(accepted.status).toBe(200);
      expect(accepted.body.user.role).toBe('team_member');
      expect((await signup(uniqueEmail(), invite.body.invite_token)).status).toBe(400);

      const lateEmail = uniqueEmail('late');
      const late = await call('ownerA', 'POST', `/stores/${storeA}/members`, { email: lateEmail, permissions: [] });
      await api.app
        .get(SYSTEM_DATA_SOURCE)
        .query(`UPDATE store_members SET invite_expires_at = now() - interval '1 minute' WHERE id = $1`, [
          late.body.member.id,
        ]);
      expect((await signup(lateEmail, late.body.invite_token)).status).toBe(400);
      // A refused sign-up leaves no account behind: the e-mail is still free.
      const login = await api.request('POST', '/auth/v1/token?grant_type=password', {
        headers: { apikey: PUBLIC_KEY },
        body: { email: lateEmail, password: 'correct horse battery' },
      });
      expect(login.body.error_code).toBe('invalid_credentials');
    });

    it('removing a member ends its access to the store', async () => {
      const email = uniqueEmail('leaver');
      const invite = await call('ownerA', 'POST', `/stores/${storeA}/members`, { email, permissions: ['catalog'] });
      const leaver = (await signUp(api, { invite_token: invite.body.invite_token }, email)).access_token;
      expect((await api.request('GET', `/functions/v1/stores/${storeA}`, { token: leaver })).status).toBe(200);
      expect((await call('member', 'DELETE', `/stores/${storeA}/members/${invite.body.member.id}`)).status).toBe(403);
      const removed = await call('ownerA', 'DELETE', `/stores/${storeA}/members/${invite.body.member.id}`);
      expect(removed.body).toEqual({ success: true, message: 'Member removed' });
      expect((await api.request('GET', `/functions/v1/stores/${storeA}`, { token: leaver })).status).toBe(404);
      expect((await call('ownerA', 'DELETE', `/stores/${storeA}/members/${invite.body.member.id}`)).status).toBe(404);
      expect((await call('ownerA', 'DELETE', `/stores/${storeA}/members/nope`)).status).toBe(400);
    });
  });
});
