import { DataSource } from 'typeorm';
import {
  PUBLIC_KEY,
  merchantWithStore,
  signUp,
  startApp,
  uniqueEmail,
  type Session,
  type TestApp,
  TEST_ADMIN,
} from './support/app.js';
import { asRequest, SYSTEM_DATA_SOURCE } from './support/database.js';

type Who =
  | 'owner'
  | 'admin'
  | 'customersMember'
  | 'otherMember'
  | 'customer'
  | 'otherCustomer'
  | 'otherOwner'
  | 'otherStoreCustomer';

const UNKNOWN_ID = '3f0e1d2c-4b5a-4697-8a8b-9c0d1e2f3a4b';
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * Customers: the role × route matrix (own store, another tenant's store, a customer's
 * own record and another's), validation, e-mail uniqueness, the customer.* events in the outbox, the
 * sign-up link, and row-level security beneath the guards.
 */
describe('customers', () => {
  let api: TestApp;
  let db: DataSource;
  let storeA: string;
  let storeB: string;
  const sessions: Record<Who, Session> = {} as never;
  /**
   * The customer record of `customer` (signed up in store A), of `otherCustomer`, and of `otherStoreCustomer` (store
   * B).
   */
  let ownRecord: string;
  let otherRecord: string;
  let storeBRecord: string;
  const adminEmail = TEST_ADMIN.email;

  const call = (who: Who, method: string, path: string, body?: unknown) =>
    api.request(method, `/functions/v1${path}`, { token: sessions[who].access_token, body });

  /** customer.* events of a store (of one customer record when given), oldest first. */
  const events = async (storeId: string, customerId?: string) =>
    (await db.query(
      `SELECT event, data FROM outbox_events
        WHERE store_id = $1 AND event LIKE 'customer.%' AND ($2::text IS NULL OR data->>'customer_id' = $2)
        ORDER BY created_at, id`,
      [storeId, customerId ?? null],
    )) as { event: string; data: Record<string, unknown> }[];

  /** The stored rows (RLS does not apply to the test's own connection). */
  const record = async (id: string) =>
    ((await db.query('SELECT * FROM customers WHERE id = $1', [id])) as Record<string, unknown>[])[0];
  const recordsWithEmail = async (storeId: string, email: string) =>
    (await db.query('SELECT * FROM customers WHERE store_id = $1 AND lower(email) = lower($2)', [
      storeId,
      email,
    ])) as Record<string, unknown>[];
  const recordOfUser = async (userId: string) =>
    ((await db.query('SELECT * FROM customers WHERE user_id = $1', [userId])) as { id: string }[])[0];

  /** The distinct fields a 400 names. */
  const fields = (body: { error: { details: { field: string }[] } }) => [
    ...new Set(body.error.details.map((d) => d.field)),
  ];
  const create = (who: Who, body: Record<string, unknown>, storeId = storeA) =>
    call(who, 'POST', `/stores/${storeId}/customers`, body);

  const memberOfA = async (permissions: string[]) => {
    const email = uniqueEmail('member');
    const invite = await call('owner', 'POST', `/stores/${storeA}/members`, { email, permissions });
    return signUp(api, { invite_token: invite.body.invite_token }, email);
  };

  beforeAll(async () => {
    api = await startApp({ ADMIN_EMAIL: adminEmail, ADMIN_PASSWORD: TEST_ADMIN.password });
    db = api.app.get<DataSource>(SYSTEM_DATA_SOURCE);
    const a = await merchantWithStore(api, 'Customers A');
    const b = await merchantWithStore(api, 'Customers B');
    storeA = a.storeId;
    storeB = b.storeId;
    sessions.owner = a.session;
    sessions.otherOwner = b.session;
    sessions.customersMember = await memberOfA(['customers']);
    // Every permission but `customers`: none of them grants access to customers.
    sessions.otherMember = await memberOfA(['catalog', 'orders', 'ai', 'social', 'webhooks', 'billing']);
    sessions.customer = await signUp(api, { role: 'customer', store_id: storeA, full_name: 'Ada Shopper' });
    sessions.otherCustomer = await signUp(api, { role: 'customer', store_id: storeA, full_name: 'Bob Shopper' });
    sessions.otherStoreCustomer = await signUp(api, { role: 'customer', store_id: storeB, full_name: 'Cy Shopper' });
    const admin = await api.request('POST', '/auth/v1/token?grant_type=password', {
      headers: { apikey: PUBLIC_KEY },
      body: { email: adminEmail, password: TEST_ADMIN.password },
    });
    sessions.admin = admin.body;
    ownRecord = (await recordOfUser(sessions.customer.user.id)).id;
    otherRecord = (await recordOfUser(sessions.otherCustomer.user.id)).id;
    storeBRecord = (await recordOfUser(sessions.otherStoreCustomer.user.id)).id;
  });
  afterAll(() => api.close());

  describe('POST /stores/{store_id}/customers', () => {
    it.each([
      ['owner', 201],
      ['admin', 201],
      ['customersMember', 201],
      ['otherMember', 403],
      ['customer', 403],
      ['otherOwner', 404],
      ['otherStoreCustomer', 404],
    ] as const)('as %s → %i', async (who, status) => {
      const email = uniqueEmail(`by-${who}`);
      const result = await create(who, { name: `Made by ${who}`, email });
      expect(result.status).toBe(status);
      if (status === 201) {
        expect(result.body).toEqual({
          success: true,
          customer: {
            id: expect.any(String),
            store_id: storeA,
            user_id: null,
            name: `Made by ${who}`,
            email,
            phone: null,
            created_at: expect.stringMatching(TIMESTAMP),
            updated_at: expect.stringMatching(TIMESTAMP),
          },
        });
        expect(await events(storeA, result.body.customer.id)).toEqual([
          { event: 'customer.created', data: { customer_id: result.body.customer.id, name: `Made by ${who}`, email } },
        ]);
      } else {
        expect(result.body).toEqual({
          success: false,
          error:
            status === 403
              ? { code: 'FORBIDDEN', message: expect.any(String) }
              : { code: 'NOT_FOUND', message: 'Store not found' },
        });
        expect(await recordsWithEmail(storeA, email)).toEqual([]);
      }
    });

    it('trims name, e-mail and phone, keeps the phone, and fires one customer.created', async () => {
      const email = uniqueEmail('trim');
      const result = await create('owner', {
        name: '  Grace Hopper ',
        email: ` ${email} `,
        phone: ' +1 (555) 010-0199 ',
      });
      expect(result.status).toBe(201);
      expect(result.body.customer).toMatchObject({ name: 'Grace Hopper', email, phone: '+1 (555) 010-0199' });
      expect(await record(result.body.customer.id)).toMatchObject({
        name: 'Grace Hopper',
        email,
        phone: '+1 (555) 010-0199',
      });
      expect(await events(storeA, result.body.customer.id)).toEqual([
        { event: 'customer.created', data: { customer_id: result.body.customer.id, name: 'Grace Hopper', email } },
      ]);
    });

    it('refuses invalid fields with their names, and a refused creation stores and emits nothing', async () => {
      const before = {
        events: (await events(storeA)).length,
        rows: (await db.query('SELECT id FROM customers WHERE store_id = $1', [storeA])).length,
      };
      const email = uniqueEmail('valid');
      const cases: [Record<string, unknown>, string][] = [
        [{ email }, 'name'],
        [{ name: '   ', email }, 'name'],
        [{ name: 'x'.repeat(201), email }, 'name'],
        [{ name: 42, email }, 'name'],
        [{ name: 'No mail' }, 'email'],
        [{ name: 'Bad mail', email: 'not-an-email' }, 'email'],
        [
          { name: 'Long mail', email: `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com` },
          'email',
        ],
        [{ name: 'Letters', email, phone: 'call me maybe' }, 'phone'],
        [{ name: 'Two digits', email, phone: '+12' }, 'phone'],
        [{ name: 'Sixteen digits', email, phone: '+1234567890123456' }, 'phone'],
        [{ name: 'Too long', email, phone: `${'(1)-'.repeat(10)}1` }, 'phone'],
        [{ name: 'Plus inside', email, phone: '555+0100' }, 'phone'],
        [{ name: 'Number', email, phone: 5550100 }, 'phone'],
        [{ name: 'Linked', email, user_id: sessions.customer.user.id }, 'user_id'],
        [{ name: 'Elsewhere', email, store_id: storeB }, 'store_id'],
      ];
      for (const [body, field] of cases) {
        const result = await create('owner', body);
        expect(result.status, JSON.stringify(body)).toBe(400);
        expect(result.body.error.code).toBe('VALIDATION_FAILED');
        expect(fields(result.body), JSON.stringify(body)).toEqual([field]);
      }
      expect((await events(storeA)).length).toBe(before.events);
      expect((await db.query('SELECT id FROM customers WHERE store_id = $1', [storeA])).length).toBe(before.rows);
      // The limits themselves are accepted: 200 characters of name, 15 digits of phone, 40 characters of phone.
      const edge = await create('owner', { name: 'n'.repeat(200), email, phone: '+1 234 567 890 123 45' });
      expect(edge.body.customer).toMatchObject({ name: 'n'.repeat(200), phone: '+1 234 567 890 123 45' });
      const longest = await create('owner', {
        name: 'Longest phone',
        email: uniqueEmail('long'),
        phone: '(1)-'.repeat(10),
      });
      expect(longest.body.customer.phone).toBe('(1)-'.repeat(10));
      const bare = await create('owner', { name: 'No phone', email: uniqueEmail('bare'), phone: null });
      expect(bare.body.customer.phone).toBeNull();
    });

    it('refuses a second customer with the same e-mail in any case (409), in the store only', async () => {
      const email = uniqueEmail('dup');
      const first = await create('owner', { name: 'First', email });
      expect(first.status).toBe(201);
      const eventsBefore = (await events(storeA)).length;
      const twice = await create('customersMember', { name: 'Second', email: email.toUpperCase() });
      expect(twice.status).toBe(409);
      expect(twice.body).toEqual({
        success: false,
        error: { code: 'CONFLICT', message: 'This store already has a customer with that e-mail' },
      });
      // The e-mail of a customer who signed up is taken too.
      expect((await create('owner', { name: 'Ada again', email: sessions.customer.user.email })).status).toBe(409);
      expect(await recordsWithEmail(storeA, email)).toHaveLength(1);
      expect((await events(storeA)).length).toBe(eventsBefore);
      // Another store may have a customer with the same e-mail.
      expect((await create('otherOwner', { name: 'Same mail', email }, storeB)).status).toBe(201);
    });

    it('a malformed store id answers 400, an unknown one 404', async () => {
      expect((await call('owner', 'POST', '/stores/nope/customers', { name: 'x', email: uniqueEmail() })).status).toBe(
        400,
      );
      expect((await create('owner', { name: 'x', email: uniqueEmail() }, UNKNOWN_ID)).body.error.code).toBe(
        'NOT_FOUND',
      );
    });
  });

  describe('GET /stores/{store_id}/customers', () => {
    it.each([
      ['owner', 200],
      ['admin', 200],
      ['customersMember', 200],
      ['otherMember', 403],
      ['customer', 403],
      ['otherOwner', 404],
      ['otherStoreCustomer', 404],
    ] as const)('as %s → %i', async (who, status) => {
      const result = await call(who, 'GET', `/stores/${storeA}/customers?limit=100`);
      expect(result.status).toBe(status);
      if (status === 200) {
        expect(result.body.success).toBe(true);
        const ids = result.body.data.map((c: { id: string }) => c.id);
        expect(ids).toEqual(expect.arrayContaining([ownRecord, otherRecord]));
        expect(ids).not.toContain(storeBRecord);
        expect(result.body.data.every((c: { store_id: string }) => c.store_id === storeA)).toBe(true);
      } else {
        expect(result.body.error.code).toBe(status === 403 ? 'FORBIDDEN' : 'NOT_FOUND');
        expect(result.body.data).toBeUndefined();
      }
    });

    it('searches name and e-mail without case, pages newest first', async () => {
      const store = await merchantWithStore(api, 'Search store');
      const made: string[] = [];
      for (const [name, email] of [
        ['Ann Lee', 'ann.lee@example.com'],
        ['Ben Ortiz', 'ben@shop.example.com'],
        ['Cara 100% Wool', 'cara@example.com'],
        ['Dan Shopwell', 'dan@example.com'],
      ]) {
        const result = await api.request('POST', `/functions/v1/stores/${store.storeId}/customers`, {
          token: store.token,
          body: { name, email },
        });
        made.push(result.body.customer.id);
      }
      const names = async (query: string) => {
        const result = await api.request('GET', `/functions/v1/stores/${store.storeId}/customers${query}`, {
          token: store.token,
        });
        expect(result.status, query).toBe(200);
        return result.body.data.map((c: { name: string }) => c.name);
      };
      expect(await names('')).toEqual(['Dan Shopwell', 'Cara 100% Wool', 'Ben Ortiz', 'Ann Lee']);
      expect(await names('?q=SHOP')).toEqual(['Dan Shopwell', 'Ben Ortiz']);
      expect(await names('?q=ann.LEE@')).toEqual(['Ann Lee']);
      expect(await names('?q=%25')).toEqual(['Cara 100% Wool']);
      expect(await names('?q=_')).toEqual([]);
      expect(await names('?q=nobody')).toEqual([]);
      const first = await api.request('GET', `/functions/v1/stores/${store.storeId}/customers?limit=3`, {
        token: store.token,
      });
      expect(first.body.data.map((c: { id: string }) => c.id)).toEqual(made.slice(1).reverse());
      expect(first.body.next_cursor).toEqual(expect.any(String));
      const rest = await api.request(
        'GET',
        `/functions/v1/stores/${store.storeId}/customers?limit=3&cursor=${first.body.next_cursor}`,
        {
          token: store.token,
        },
      );
      expect(rest.body).toEqual({
        success: true,
        data: [expect.objectContaining({ id: made[0], name: 'Ann Lee' })],
        next_cursor: null,
      });
      for (const query of ['?limit=0', '?limit=101', '?cursor=garbage', `?q=${'x'.repeat(201)}`, '?status=active']) {
        const bad = await api.request('GET', `/functions/v1/stores/${store.storeId}/customers${query}`, {
          token: store.token,
        });
        expect(bad.status, query).toBe(400);
      }
    });
  });

  describe('GET /customers/{customer_id}', () => {
    it.each([
      ['owner', 200],
      ['admin', 200],
      ['customersMember', 200],
      ['customer', 200],
      ['otherMember', 403],
      ['otherCustomer', 404],
      ['otherOwner', 404],
      ['otherStoreCustomer', 404],
    ] as const)("the customer's record as %s → %i", async (who, status) => {
      const result = await call(who, 'GET', `/customers/${ownRecord}`);
      expect(result.status).toBe(status);
      if (status === 200) {
        expect(result.body).toEqual({
          success: true,
          customer: expect.objectContaining({
            id: ownRecord,
            store_id: storeA,
            user_id: sessions.customer.user.id,
            email: sessions.customer.user.email,
          }),
        });
      } else if (status === 404) {
        expect(result.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: 'Customer not found' } });
      } else {
        expect(result.body.error.code).toBe('FORBIDDEN');
      }
    });

    it('an unknown id answers 404 like another tenant’s, a malformed one 400', async () => {
      expect((await call('owner', 'GET', `/customers/${UNKNOWN_ID}`)).body).toEqual({
        success: false,
        error: { code: 'NOT_FOUND', message: 'Customer not found' },
      });
      expect((await call('owner', 'GET', `/customers/${storeBRecord}`)).status).toBe(404);
      expect((await call('otherOwner', 'GET', `/customers/${storeBRecord}`)).status).toBe(200);
      expect((await call('owner', 'GET', '/customers/not-a-uuid')).status).toBe(400);
    });
  });

  describe('PATCH /customers/{customer_id}', () => {
    it.each([
      ['owner', 200],
      ['admin', 200],
      ['customersMember', 200],
      ['customer', 200],
      ['otherMember', 403],
      ['otherCustomer', 404],
      ['otherOwner', 404],
      ['otherStoreCustomer', 404],
    ] as const)("the customer's record as %s → %i", async (who, status) => {
      const before = await record(ownRecord);
      const eventsBefore = await events(storeA, ownRecord);
      const result = await call(who, 'PATCH', `/customers/${ownRecord}`, { name: `Renamed by ${who}` });
      expect(result.status).toBe(status);
      const after = await record(ownRecord);
      const fired = (await events(storeA, ownRecord)).slice(eventsBefore.length);
      if (status === 200) {
        expect(result.body.customer).toMatchObject({ id: ownRecord, name: `Renamed by ${who}`, email: before.email });
        expect(after.name).toBe(`Renamed by ${who}`);
        expect(fired).toEqual([
          {
            event: 'customer.updated',
            data: { customer_id: ownRecord, name: `Renamed by ${who}`, email: before.email },
          },
        ]);
      } else {
        expect(result.body.error.code).toBe(status === 403 ? 'FORBIDDEN' : 'NOT_FOUND');
        expect(after).toEqual(before);
        expect(fired).toEqual([]);
      }
    });

    it(
      'changes e-mail and phone, clears the phone with null, ' +
        'one customer.updated per change with the data after it',
      async () => {
        const email = uniqueEmail('patch');
        const id = (await create('owner', { name: 'Patchy', email, phone: '+44 20 7946 0958' })).body.customer.id;
        const newEmail = uniqueEmail('patched');
        const changed = await call('customersMember', 'PATCH', `/customers/${id}`, {
          email: ` ${newEmail} `,
          phone: '020 7946 0000',
        });
        expect(changed.status).toBe(200);
        expect(changed.body.customer).toMatchObject({ id, name: 'Patchy', email: newEmail, phone: '020 7946 0000' });
        expect(new Date(changed.body.customer.updated_at).getTime()).toBeGreaterThan(
          new Date(changed.body.customer.created_at).getTime(),
        );
        const cleared = await call('owner', 'PATCH', `/customers/${id}`, { phone: null });
        expect(cleared.body.customer.phone).toBeNull();
        expect((await record(id)).phone).toBeNull();
        const recased = await call('owner', 'PATCH', `/customers/${id}`, { email: newEmail.toUpperCase() });
        expect(recased.status).toBe(200);
        expect(recased.body.customer.email).toBe(newEmail.toUpperCase());
        expect(await events(storeA, id)).toEqual([
          { event: 'customer.created', data: { customer_id: id, name: 'Patchy', email } },
          { event: 'customer.updated', data: { customer_id: id, name: 'Patchy', email: newEmail } },
          { event: 'customer.updated', data: { customer_id: id, name: 'Patchy', email: newEmail } },
          { event: 'customer.updated', data: { customer_id: id, name: 'Patchy', email: newEmail.toUpperCase() } },
        ]);
      },
    );

    it('a request that changes nothing answers the record and writes and fires nothing', async () => {
      const email = uniqueEmail('same');
      const made = (await create('owner', { name: 'Same Name', email, phone: '+15550100' })).body.customer;
      for (const body of [
        {},
        { name: 'Same Name' },
        { name: '  Same Name  ', email: ` ${email}`, phone: '+15550100' },
      ]) {
        const result = await call('owner', 'PATCH', `/customers/${made.id}`, body);
        expect(result.status, JSON.stringify(body)).toBe(200);
        expect(result.body.customer).toEqual(made);
      }
      expect((await record(made.id)).updated_at).toEqual(new Date(made.updated_at));
      expect((await events(storeA, made.id)).map((e) => e.event)).toEqual(['customer.created']);
    });

    it('an e-mail another customer of the store has answers 409 and changes and fires nothing', async () => {
      const taken = uniqueEmail('taken');
      await create('owner', { name: 'Holder', email: taken });
      const id = (await create('owner', { name: 'Mover', email: uniqueEmail('mover') })).body.customer.id;
      const before = await record(id);
      for (const [who, target, email] of [
        ['owner', id, taken.toUpperCase()],
        ['owner', id, sessions.otherCustomer.user.email],
        ['customer', ownRecord, taken],
      ] as const) {
        const result = await call(who, 'PATCH', `/customers/${target}`, { name: 'Should not stick', email });
        expect(result.status, `${who} → ${email}`).toBe(409);
        expect(result.body.error).toEqual({
          code: 'CONFLICT',
          message: 'This store already has a customer with that e-mail',
        });
      }
      expect(await record(id)).toEqual(before);
      expect((await record(ownRecord)).name).not.toBe('Should not stick');
      expect((await events(storeA, id)).map((e) => e.event)).toEqual(['customer.created']);
      expect((await events(storeA)).filter((e) => e.data.name === 'Should not stick')).toEqual([]);
      expect(await recordsWithEmail(storeA, taken)).toHaveLength(1);
    });

    it('refuses invalid and unknown fields (400) and emits nothing', async () => {
      const id = (await create('owner', { name: 'Valid', email: uniqueEmail('valid') })).body.customer.id;
      const before = await record(id);
      const cases: [Record<string, unknown>, string][] = [
        [{ name: null }, 'name'],
        [{ name: '' }, 'name'],
        [{ name: ' \t ' }, 'name'],
        [{ name: 'x'.repeat(201) }, 'name'],
        [{ email: null }, 'email'],
        [{ email: 'nope' }, 'email'],
        [{ phone: 'ext. 12' }, 'phone'],
        [{ phone: '' }, 'phone'],
        [{ user_id: sessions.customer.user.id }, 'user_id'],
        [{ store_id: storeB }, 'store_id'],
      ];
      for (const [body, field] of cases) {
        const result = await call('owner', 'PATCH', `/customers/${id}`, body);
        expect(result.status, JSON.stringify(body)).toBe(400);
        expect(fields(result.body), JSON.stringify(body)).toEqual([field]);
      }
      // A customer cannot move its record to another account or store either.
      expect(
        (await call('customer', 'PATCH', `/customers/${ownRecord}`, { user_id: sessions.otherCustomer.user.id }))
          .status,
      ).toBe(400);
      expect(await record(id)).toEqual(before);
      expect((await events(storeA, id)).map((e) => e.event)).toEqual(['customer.created']);
      expect((await call('owner', 'PATCH', `/customers/${UNKNOWN_ID}`, { name: 'Ghost' })).status).toBe(404);
    });

    it("a customer changing its record's e-mail keeps its sign-in e-mail", async () => {
      const email = uniqueEmail('self');
      const self = await signUp(api, { role: 'customer', store_id: storeA, full_name: 'Self Service' }, email);
      const id = (await recordOfUser(self.user.id)).id;
      const newEmail = uniqueEmail('self-new');
      const result = await api.request('PATCH', `/functions/v1/customers/${id}`, {
        token: self.access_token,
        body: { email: newEmail, phone: '+33 1 23 45 67 89' },
      });
      expect(result.status).toBe(200);
      expect(result.body.customer).toMatchObject({
        id,
        user_id: self.user.id,
        email: newEmail,
        phone: '+33 1 23 45 67 89',
      });
      const user = await api.request('GET', '/auth/v1/user', {
        token: self.access_token,
        headers: { apikey: PUBLIC_KEY },
      });
      expect(user.body.email).toBe(email);
      const signIn = await api.request('POST', '/auth/v1/token?grant_type=password', {
        headers: { apikey: PUBLIC_KEY },
        body: { email, password: 'correct horse battery' },
      });
      expect(signIn.status).toBe(200);
      expect((await events(storeA, id)).map((e) => [e.event, e.data.email])).toEqual([
        ['customer.created', email],
        ['customer.updated', newEmail],
      ]);
    });
  });

  describe('sign-up as a customer', () => {
    it('creates the linked record, visible to staff, with exactly one customer.created', async () => {
      const email = uniqueEmail('signup');
      const session = await signUp(api, { role: 'customer', store_id: storeA, full_name: 'Linus Signup' }, email);
      const list = await call('customersMember', 'GET', `/stores/${storeA}/customers?q=${encodeURIComponent(email)}`);
      expect(list.body.data).toEqual([
        expect.objectContaining({
          store_id: storeA,
          user_id: session.user.id,
          name: 'Linus Signup',
          email,
          phone: null,
        }),
      ]);
      const id = list.body.data[0].id;
      expect(await events(storeA, id)).toEqual([
        { event: 'customer.created', data: { customer_id: id, name: 'Linus Signup', email } },
      ]);
      expect((await api.request('GET', `/functions/v1/customers/${id}`, { token: session.access_token })).status).toBe(
        200,
      );
    });

    it(
      'refuses a sign-up with the e-mail of a record staff ' + 'made (any case): the record is never handed over',
      async () => {
        const email = uniqueEmail('walkin');
        const made = (await create('owner', { name: 'Walk-in Buyer', email, phone: '+1 555 0199' })).body.customer;
        const attempt = await api.request('POST', '/auth/v1/signup', {
          headers: { apikey: PUBLIC_KEY },
          body: {
            email: email.toUpperCase(),
            password: 'correct horse battery',
            data: { role: 'customer', store_id: storeA },
          },
        });
        expect(attempt.status).toBe(422);
        expect(attempt.body.error_code).toBe('user_already_exists');
        const rows = await recordsWithEmail(storeA, email);
        expect(rows).toHaveLength(1);
        expect(rows[0]).toMatchObject({ id: made.id, user_id: null });
        expect((await events(storeA, made.id)).map((e) => e.event)).toEqual(['customer.created']);
        const login = await api.request('POST', '/auth/v1/token?grant_type=password', {
          headers: { apikey: PUBLIC_KEY },
          body: { email, password: 'correct horse battery' },
        });
        expect(login.body.error_code).toBe('invalid_credentials');
      },
    );
  });

  it('/docs-json documents the routes, their answers and every body field with an example', async () => {
    const doc = (await api.request('GET', '/docs-json')).body;
    const operations = [
      // 409 and 422 of an Idempotency-Key on the writes.
      ['post', '/functions/v1/stores/{store_id}/customers', ['201', '400', '401', '403', '404', '409', '422']],
      ['get', '/functions/v1/stores/{store_id}/customers', ['200', '400', '401', '403', '404']],
      ['get', '/functions/v1/customers/{customer_id}', ['200', '400', '401', '403', '404']],
      ['patch', '/functions/v1/customers/{customer_id}', ['200', '400', '401', '403', '404', '409', '422']],
    ] as const;
    for (const [method, path, statuses] of operations) {
      const operation = doc.paths[path]?.[method];
      expect(operation?.summary, `${method} ${path}`).toBeTruthy();
      expect(Object.keys(operation.responses).sort(), `${method} ${path}`).toEqual([...statuses].sort());
    }
    expect(doc.paths['/functions/v1/customers/{customer_id}'].patch.description).toMatch(
      /sign(s)? in with .* stays as it was/,
    );
    expect(
      doc.paths['/functions/v1/stores/{store_id}/customers'].get.parameters.map((p: { name: string }) => p.name),
    ).toEqual(expect.arrayContaining(['store_id', 'limit', 'cursor', 'q']));
    for (const schema of ['CreateCustomerDto', 'UpdateCustomerDto']) {
      const properties = doc.components.schemas[schema].properties as Record<
        string,
        { description?: string; example?: unknown }
      >;
      expect(Object.keys(properties).sort(), schema).toEqual(['email', 'name', 'phone']);
      for (const [field, property] of Object.entries(properties)) {
        expect(property.description, `${schema}.${field}`).toBeTruthy();
        expect(property.example, `${schema}.${field}`).toBeDefined();
      }
    }
    expect(doc.components.schemas.CreateCustomerDto.required.sort()).toEqual(['email', 'name']);
    expect(doc.components.schemas.UpdateCustomerDto.required ?? []).toEqual([]);
  });

  describe('row-level security beneath the guards', () => {
    /** Runs `sql` in a transaction bound to the user, as RouteTransactions does for requests. */
    const asUser = (session: Session, sql: string, params: unknown[] = []) =>
      asRequest(api, session.access_token, (q) => q(sql, params));

    it("a customer's unfiltered SELECT sees its own record only", async () => {
      const inStore = (await db.query('SELECT id FROM customers WHERE store_id = $1', [storeA])) as { id: string }[];
      expect(inStore.length).toBeGreaterThan(2);
      const seen = (await asUser(sessions.customer, 'SELECT * FROM customers')) as { id: string }[];
      expect(seen.map((row) => row.id)).toEqual([ownRecord]);
      const byId = await asUser(sessions.customer, 'SELECT id FROM customers WHERE id = $1', [otherRecord]);
      expect(byId).toEqual([]);
    });

    it("a customer's UPDATE cannot touch another customer's record", async () => {
      const before = await record(otherRecord);
      await asUser(sessions.customer, `UPDATE customers SET name = 'Hijacked' WHERE id = $1`, [otherRecord]);
      await asUser(sessions.customer, `UPDATE customers SET name = 'Hijacked' WHERE store_id = $1`, [storeA]);
      expect(await record(otherRecord)).toEqual(before);
      expect((await record(ownRecord)).name).toBe('Hijacked');
    });

    it.each(['owner', 'customersMember'] as const)('%s of store A sees the rows of A and none of B', async (who) => {
      const inB = (await db.query('SELECT id FROM customers WHERE store_id = $1', [storeB])) as unknown[];
      expect(inB.length).toBeGreaterThan(0);
      const seen = (await asUser(sessions[who], 'SELECT id, store_id FROM customers')) as {
        id: string;
        store_id: string;
      }[];
      expect(seen.map((row) => row.id)).toEqual(expect.arrayContaining([ownRecord, otherRecord]));
      expect(seen.filter((row) => row.store_id !== storeA)).toEqual([]);
      expect(await asUser(sessions[who], 'SELECT id FROM customers WHERE id = $1', [storeBRecord])).toEqual([]);
    });
  });
});
