import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { SecretBox } from '@app/core';
import { DeliveryQueue } from '@app/webhooks';
import { merchantWithStore, signUp, startApp, uniqueEmail, type TestApp } from './support/app.js';
import { SYSTEM_DATA_SOURCE } from './support/database.js';

/** Nothing listens on the discard port: deliveries to it fail fast, and no test here needs one to succeed. */
const DEAD_URL = 'http://127.0.0.1:9/hook';
const HOUR = 60 * 60 * 1000;
const WEBHOOK_FIELDS = [
  'created_at',
  'disabled_reason',
  'events',
  'id',
  'secret_hint',
  'status',
  'store_id',
  'updated_at',
  'url',
];

type Who = 'owner' | 'webhooksMember' | 'catalogMember' | 'customer' | 'otherOwner';

/**
 * The webhook management API: registration and secrets, roles and tenants, the URL
 * guard, rotation, disable/re-enable, test events, the delivery log, redelivery, recovery and
 * merchant notifications. Deliveries themselves (signing, retries) are test/webhook-delivery's.
 */
describe('webhooks API', () => {
  let api: TestApp;
  /** The same database, without WEBHOOK_ALLOW_HTTP / WEBHOOK_ALLOW_PRIVATE_URLS: the URL guard as in production. */
  let strict: TestApp;
  let storeId: string;
  let otherStoreId: string;
  const tokens = {} as Record<Who, string>;
  const db = () => api.app.get<DataSource>(SYSTEM_DATA_SOURCE);
  const open = (sealed: string) => api.app.get(SecretBox).open(sealed);

  const call = (who: Who, method: string, path: string, body?: unknown, app: TestApp = api) =>
    app.request(method, `/functions/v1${path}`, { token: tokens[who], body });
  const register = async (body: Record<string, unknown> = {}, who: Who = 'owner') => {
    const result = await call(who, 'POST', '/webhooks/register', {
      store_id: storeId,
      url: DEAD_URL,
      events: ['order.paid'],
      ...body,
    });
    expect(result.status, JSON.stringify(result.body)).toBe(201);
    return result.body as { webhook: { id: string; secret_hint: string } & Record<string, unknown>; secret?: string };
  };
  const row = async (id: string) => (await db().query('SELECT * FROM webhooks WHERE id = $1', [id]))[0];
  /** A delivery written directly, in the state a test needs. */
  const insertDelivery = async (
    webhookId: string,
    fields: {
      status?: string;
      createdAt?: Date;
      eventId?: string;
      event?: string;
      redeliveryOf?: string;
      store?: string;
    } = {},
  ): Promise<{ id: string; event_id: string; body: string }> => {
    const eventId = fields.eventId ?? randomUUID();
    const body = JSON.stringify({
      id: eventId,
      event: fields.event ?? 'order.paid',
      created_at: new Date().toISOString(),
      store_id: storeId,
      data: {},
    });
    const [inserted] = await db().query(
      `INSERT INTO webhook_deliveries (webhook_id, store_id, event_id, event, body, status, redelivery_of, created_at,
        updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING id, event_id, body`,
      [
        webhookId,
        fields.store ?? storeId,
        eventId,
        fields.event ?? 'order.paid',
        body,
        fields.status ?? 'failed',
        fields.redeliveryOf ?? null,
        fields.createdAt ?? new Date(),
      ],
    );
    return inserted;
  };
  /**
   * The deliveries of `webhookId` whose first attempt waits in the delivery queue (Bull, in Redis),
   * sorted; each job as a request enqueues it once its transaction has committed, due at once. The apps here are `api`
   * processes with a queue of their own: nothing takes the jobs away.
   */
  const queuedFirstAttempts = async (webhookId: string): Promise<string[]> => {
    const queue = api.app.get(DeliveryQueue).queue;
    const deliveries: { id: string }[] = await db().query('SELECT id FROM webhook_deliveries WHERE webhook_id = $1', [
      webhookId,
    ]);
    const jobs = (await Promise.all(deliveries.map(({ id }) => queue.getJob(`${id}:1`)))).filter((job) => job !== null);
    for (const job of jobs) {
      expect(job.data).toEqual({ deliveryId: expect.any(String), attempt: 1 });
      expect(job.opts.delay).toBe(0);
    }
    return jobs.map((job) => job.data.deliveryId).sort();
  };
  /** No field of the answer is the secret or its sealed form, and the plaintext appears nowhere in it. */
  const expectNoSecret = (body: unknown, plaintext?: string) => {
    const text = JSON.stringify(body);
    expect(text).not.toMatch(/"secret"\s*:/);
    expect(text).not.toContain('secret_sealed');
    expect(text).not.toContain('previous_secret');
    if (plaintext) expect(text).not.toContain(plaintext);
  };

  beforeAll(async () => {
    // API processes only (no delivery worker), on a queue of their own: what a request enqueues stays
    // in Redis for the tests to read.
    const apiOnly = { APP_ROLE: 'api', REDIS_PREFIX: `${process.env.REDIS_PREFIX}webhooks-api:` };
    api = await startApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_ALLOW_HTTP: 'true', ...apiOnly });
    strict = await startApp(apiOnly);
    const owner = await merchantWithStore(api, 'Webhook API store');
    const other = await merchantWithStore(api, 'Another tenant');
    storeId = owner.storeId;
    otherStoreId = other.storeId;
    tokens.owner = owner.token;
    tokens.otherOwner = other.token;
    const member = async (permissions: string[]) => {
      const email = uniqueEmail('member');
      const invite = await call('owner', 'POST', `/stores/${storeId}/members`, { email, permissions });
      return (await signUp(api, { invite_token: invite.body.invite_token }, email)).access_token;
    };
    tokens.webhooksMember = await member(['webhooks']);
    tokens.catalogMember = await member(['catalog', 'orders', 'customers']);
    tokens.customer = (await signUp(api, { role: 'customer', store_id: storeId })).access_token;
  });
  afterAll(async () => {
    // Nothing here attempts the deliveries left pending; neither should another file's worker.
    if (storeId) {
      await db().query(
        `UPDATE webhook_deliveries SET status = 'cancelled' WHERE store_id = ANY ($1::uuid[]) AND status = 'pending'`,
        [[storeId, otherStoreId]],
      );
    }
    await strict?.close();
    await api?.close();
  });

  describe('registration and secrets', () => {
    it('generates a whsec_ secret of 32 random bytes, answers it once, and stores it only sealed', async () => {
      const { webhook, secret } = await register({ events: ['order.paid', 'order.created', 'order.paid'] });
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret!.slice('whsec_'.length), 'base64')).toHaveLength(32);
      expect(Object.keys(webhook).sort()).toEqual(WEBHOOK_FIELDS);
      expect(webhook).toMatchObject({
        store_id: storeId,
        url: DEAD_URL,
        events: ['order.paid', 'order.created'],
        status: 'active',
        disabled_reason: null,
        secret_hint: `whsec_…${secret!.slice(-4)}`,
      });

      const stored = await row(webhook.id);
      expect(stored.secret_sealed).not.toContain(secret);
      expect(stored.secret_sealed).not.toContain(secret!.slice('whsec_'.length, 20));
      expect(open(stored.secret_sealed)).toBe(secret);
      expect(stored.previous_secret_sealed).toBeNull();

      const answers = [
        await call('owner', 'GET', `/webhooks/${webhook.id}`),
        await call('owner', 'GET', `/webhooks?store_id=${storeId}`),
        await call('owner', 'PATCH', `/webhooks/${webhook.id}`, { events: ['order.shipped'] }),
      ];
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        expectNoSecret(answer.body, secret);
      }
      expect(answers[0].body.webhook).toEqual({ ...webhook, events: ['order.paid', 'order.created'] });
      expect(answers[1].body.data.map((w: { id: string }) => w.id)).toContain(webhook.id);
    });

    it('accepts a supplied secret without echoing it, and refuses one of 15 characters', async () => {
      const supplied = 'merchant-secret-0123456789';
      const result = await call('owner', 'POST', '/webhooks/register', {
        store_id: storeId,
        url: DEAD_URL,
        events: ['product.created'],
        secret: supplied,
      });
      expect(result.status).toBe(201);
      expect(result.body).not.toHaveProperty('secret');
      expectNoSecret(result.body, supplied);
      expect(result.body.webhook.secret_hint).toBe('…6789');
      expect(open((await row(result.body.webhook.id)).secret_sealed)).toBe(supplied);

      const exactly16 = await call('owner', 'POST', '/webhooks/register', {
        store_id: storeId,
        url: DEAD_URL,
        events: ['product.created'],
        secret: 'a'.repeat(16),
      });
      expect(exactly16.status).toBe(201);
      const short = await call('owner', 'POST', '/webhooks/register', {
        store_id: storeId,
        url: DEAD_URL,
        events: ['product.created'],
        secret: 'a'.repeat(15),
      });
      expect(short.status).toBe(400);
      expect(short.body.error.details.map((d: { field: string }) => d.field)).toEqual(['secret']);
      const badWhsec = await call('owner', 'POST', '/webhooks/register', {
        store_id: storeId,
        url: DEAD_URL,
        events: ['product.created'],
        secret: 'whsec_not*base64*at_all',
      });
      expect(badWhsec.status).toBe(400);
      expect(badWhsec.body.error.details[0]).toMatchObject({
        field: 'secret',
        message: expect.stringContaining('base64'),
      });
      const spaced = await call('owner', 'POST', '/webhooks/register', {
        store_id: storeId,
        url: DEAD_URL,
        events: ['product.created'],
        secret: 'has a space in it!!',
      });
      expect(spaced.status).toBe(400);
    });

    it('refuses unknown event kinds by name, empty and missing events, and unknown fields', async () => {
      const base = { store_id: storeId, url: DEAD_URL };
      const unknown = await call('owner', 'POST', '/webhooks/register', {
        ...base,
        events: ['order.paid', 'order.teleported'],
      });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error.code).toBe('VALIDATION_FAILED');
      expect(unknown.body.error.details).toEqual([
        { field: 'events', message: expect.stringContaining('"order.teleported"') },
      ]);
      expect(unknown.body.error.details[0].message).not.toContain('"order.paid",');

      const cases: [Record<string, unknown>, string][] = [
        [{ ...base, events: [] }, 'events'],
        [{ ...base }, 'events'],
        [{ ...base, events: 'order.paid' }, 'events'],
        [{ ...base, events: [42] }, 'events'],
        [{ store_id: storeId, events: ['order.paid'] }, 'url'],
        [{ ...base, url: '', events: ['order.paid'] }, 'url'],
        [{ ...base, events: ['order.paid'], status: 'active' }, 'status'],
        [{ ...base, events: ['order.paid'], secret: null }, 'secret'],
      ];
      for (const [body, field] of cases) {
        const result = await call('owner', 'POST', '/webhooks/register', body);
        expect(result.status, JSON.stringify(body)).toBe(400);
        expect(
          result.body.error.details.map((d: { field: string }) => d.field),
          JSON.stringify(body),
        ).toContain(field);
      }
      const noStore = await call('owner', 'POST', '/webhooks/register', { url: DEAD_URL, events: ['order.paid'] });
      expect(noStore.status).toBe(400);
      expect(noStore.body.error.details[0].field).toBe('store_id');
      const count = await db().query(
        `SELECT count(*)::int AS n FROM webhooks WHERE store_id = $1 AND 'order.teleported' = ANY (events)`,
        [storeId],
      );
      expect(count[0].n).toBe(0);
    });

    it('normalises the URL it stores', async () => {
      const { webhook } = await register({ url: 'HTTP://127.0.0.1:9/Hook?x=1' });
      expect(webhook.url).toBe('http://127.0.0.1:9/Hook?x=1');
    });
  });

  describe('the URL guard (no WEBHOOK_ALLOW_HTTP, no WEBHOOK_ALLOW_PRIVATE_URLS)', () => {
    const attempt = (url: string) =>
      call('owner', 'POST', '/webhooks/register', { store_id: storeId, url, events: ['order.paid'] }, strict);

    it('refuses plain http', async () => {
      const result = await attempt('http://93.184.215.14/hook');
      expect(result.status).toBe(400);
      expect(result.body.error.details).toEqual([{ field: 'url', message: 'url must use https' }]);
    });

    it.each([
      ['https://127.0.0.1/hook', 'loopback'],
      ['https://localhost/hook', 'loopback'],
      ['https://10.0.0.1/hook', 'private'],
      ['https://169.254.169.254/latest/meta-data', 'metadata'],
      ['https://[::1]/hook', 'loopback'],
      ['https://192.168.1.20/hook', 'private'],
      ['https://[::ffff:127.0.0.1]/hook', 'loopback'],
    ])('refuses %s (%s)', async (url, reason) => {
      const result = await attempt(url);
      expect(result.status).toBe(400);
      expect(result.body.error.code).toBe('VALIDATION_FAILED');
      expect(result.body.error.details).toHaveLength(1);
      expect(result.body.error.details[0]).toMatchObject({ field: 'url', message: expect.stringContaining(reason) });
    });

    it('refuses a name that resolves to loopback without saying what it resolves to', async () => {
      const result = await attempt('https://localhost/hook');
      expect(result.status).toBe(400);
      expect(result.body.error.details).toEqual([
        {
          field: 'url',
          message:
            'url host localhost points to an address that is not allowed (loopback, ' +
            'private, link-local, metadata or another non-public address)',
        },
      ]);
      expect(JSON.stringify(result.body)).not.toMatch(/127\.0\.0\.1|::1|resolves to/);
    });

    it('refuses credentials in the URL and a URL that is not absolute', async () => {
      expect((await attempt('https://user:pass@93.184.215.14/hook')).body.error.details).toEqual([
        { field: 'url', message: 'url must not contain credentials' },
      ]);
      expect((await attempt('/relative/hook')).body.error.details[0].field).toBe('url');
    });

    it('accepts a public https address, and checks the URL again on PATCH', async () => {
      const created = await attempt('https://93.184.215.14/hook');
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const id = created.body.webhook.id;
      const moved = await call('owner', 'PATCH', `/webhooks/${id}`, { url: 'https://10.0.0.1/hook' }, strict);
      expect(moved.status).toBe(400);
      expect(moved.body.error.details[0].field).toBe('url');
      const plain = await call('owner', 'PATCH', `/webhooks/${id}`, { url: 'http://93.184.215.14/hook' }, strict);
      expect(plain.status).toBe(400);
      expect((await row(id)).url).toBe('https://93.184.215.14/hook');
    });
  });

  describe('roles and tenants', () => {
    type Route = { name: string; storeLevel: boolean; ok: number; request: () => Promise<[string, string, unknown?]> };
    const fresh = async () => (await register()).webhook.id;
    const routes: Route[] = [
      {
        name: 'register',
        storeLevel: true,
        ok: 201,
        request: async () => [
          'POST',
          '/webhooks/register',
          { store_id: storeId, url: DEAD_URL, events: ['order.paid'] },
        ],
      },
      { name: 'list', storeLevel: true, ok: 200, request: async () => ['GET', `/webhooks?store_id=${storeId}`] },
      {
        name: 'notifications',
        storeLevel: true,
        ok: 200,
        request: async () => ['GET', `/notifications?store_id=${storeId}`],
      },
      { name: 'get', storeLevel: false, ok: 200, request: async () => ['GET', `/webhooks/${await fresh()}`] },
      {
        name: 'patch',
        storeLevel: false,
        ok: 200,
        request: async () => ['PATCH', `/webhooks/${await fresh()}`, { events: ['order.created'] }],
      },
      { name: 'delete', storeLevel: false, ok: 200, request: async () => ['DELETE', `/webhooks/${await fresh()}`] },
      {
        name: 'rotate-secret',
        storeLevel: false,
        ok: 200,
        request: async () => ['POST', `/webhooks/${await fresh()}/rotate-secret`],
      },
      { name: 'test', storeLevel: false, ok: 201, request: async () => ['POST', `/webhooks/${await fresh()}/test`] },
      {
        name: 'deliveries',
        storeLevel: false,
        ok: 200,
        request: async () => ['GET', `/webhooks/${await fresh()}/deliveries`],
      },
      {
        name: 'redeliver',
        storeLevel: false,
        ok: 201,
        request: async () => {
          const id = await fresh();
          return ['POST', `/webhooks/${id}/deliveries/${(await insertDelivery(id)).id}/redeliver`];
        },
      },
      {
        name: 'recover',
        storeLevel: false,
        ok: 200,
        request: async () => [
          'POST',
          `/webhooks/${await fresh()}/recover`,
          { since: new Date(Date.now() - HOUR).toISOString() },
        ],
      },
    ];

    // A customer of the store may not manage webhooks: 403 on the store's routes; a webhook's own
    // routes answer 404 to customers (StoreAccessGuard hides every record but products from them).
    const expected = (route: Route, who: Who) =>
      ({
        owner: route.ok,
        webhooksMember: route.ok,
        catalogMember: 403,
        customer: route.storeLevel ? 403 : 404,
        otherOwner: 404,
      })[who];

    for (const route of routes) {
      it.each(['owner', 'webhooksMember', 'catalogMember', 'customer', 'otherOwner'] as Who[])(
        `${route.name} as %s`,
        async (who) => {
          const [method, path, body] = await route.request();
          const result = await call(who, method, path, body);
          expect(result.status, JSON.stringify(result.body)).toBe(expected(route, who));
          if (result.status === 404) {
            expect(result.body.error).toEqual({
              code: 'NOT_FOUND',
              message: route.storeLevel ? 'Store not found' : 'Webhook not found',
            });
          }
          if (result.status === 403) expect(result.body.error.code).toBe('FORBIDDEN');
          expect(result.body.success).toBe(result.status < 300);
        },
      );
    }

    it('another tenant learns nothing and changes nothing; unknown and malformed ids', async () => {
      const id = await fresh();
      const before = await row(id);
      for (const [method, path, body] of [
        ['PATCH', `/webhooks/${id}`, { status: 'disabled' }],
        ['DELETE', `/webhooks/${id}`],
        ['POST', `/webhooks/${id}/rotate-secret`],
      ] as [string, string, unknown?][]) {
        expect((await call('otherOwner', method, path, body)).status).toBe(404);
      }
      expect(await row(id)).toEqual(before);
      // The other owner's own store lists none of ours.
      const theirs = await call('otherOwner', 'GET', `/webhooks?store_id=${otherStoreId}`);
      expect(theirs.status).toBe(200);
      expect(theirs.body.data).toEqual([]);

      const unknown = await call('owner', 'GET', `/webhooks/${randomUUID()}`);
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.message).toBe('Webhook not found');
      const malformed = await call('owner', 'GET', '/webhooks/not-a-uuid');
      expect(malformed.status).toBe(400);
      expect(malformed.body.error.details[0].field).toBe('webhook_id');
      const noStore = await call('owner', 'GET', '/webhooks');
      expect(noStore.status).toBe(400);
    });

    it('a webhook registered for another store than the caller can see is refused with 404', async () => {
      const result = await call('owner', 'POST', '/webhooks/register', {
        store_id: otherStoreId,
        url: DEAD_URL,
        events: ['order.paid'],
      });
      expect(result.status).toBe(404);
      const count = await db().query('SELECT count(*)::int AS n FROM webhooks WHERE store_id = $1', [otherStoreId]);
      expect(count[0].n).toBe(0);
    });
  });

  describe('changing a webhook', () => {
    it(
      'rotate answers a new secret with a new hint, and ' + 'keeps the old one sealed as previous for 24 hours',
      async () => {
        const { webhook, secret: first } = await register();
        const started = Date.now();
        const rotated = await call('webhooksMember', 'POST', `/webhooks/${webhook.id}/rotate-secret`);
        expect(rotated.status).toBe(200);
        const second = rotated.body.secret as string;
        expect(second).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
        expect(second).not.toBe(first);
        expect(rotated.body.webhook.secret_hint).toBe(`whsec_…${second.slice(-4)}`);
        expect(rotated.body.webhook.secret_hint).not.toBe(webhook.secret_hint);
        expect(Object.keys(rotated.body.webhook).sort()).toEqual(WEBHOOK_FIELDS);

        const stored = await row(webhook.id);
        expect(open(stored.secret_sealed)).toBe(second);
        expect(open(stored.previous_secret_sealed)).toBe(first);
        expect(stored.previous_secret_sealed).not.toContain(first);
        const expires = new Date(stored.previous_secret_expires_at).getTime();
        expect(expires).toBeGreaterThanOrEqual(started + 24 * HOUR - 1000);
        expect(expires).toBeLessThanOrEqual(Date.now() + 24 * HOUR + 1000);

        const read = await call('owner', 'GET', `/webhooks/${webhook.id}`);
        expectNoSecret(read.body, second);
        expect(read.body.webhook.secret_hint).toBe(rotated.body.webhook.secret_hint);
      },
    );

    it('PATCH secret replaces it at once, with no overlap, and is not echoed', async () => {
      const { webhook } = await register();
      await call('owner', 'POST', `/webhooks/${webhook.id}/rotate-secret`);
      expect((await row(webhook.id)).previous_secret_sealed).not.toBeNull();
      const replaced = await call('owner', 'PATCH', `/webhooks/${webhook.id}`, { secret: 'brand-new-secret-42' });
      expect(replaced.status).toBe(200);
      expectNoSecret(replaced.body, 'brand-new-secret-42');
      expect(replaced.body.webhook.secret_hint).toBe('…t-42');
      const stored = await row(webhook.id);
      expect(open(stored.secret_sealed)).toBe('brand-new-secret-42');
      expect(stored.previous_secret_sealed).toBeNull();
      expect(stored.previous_secret_expires_at).toBeNull();
      expect((await call('owner', 'PATCH', `/webhooks/${webhook.id}`, { secret: 'x'.repeat(15) })).status).toBe(400);
    });

    it('PATCH disables (cancelling pending deliveries) and re-enables, clearing disabled_reason', async () => {
      const { webhook } = await register();
      const pending = await insertDelivery(webhook.id, { status: 'pending' });
      const done = await insertDelivery(webhook.id, { status: 'succeeded' });
      const disabled = await call('owner', 'PATCH', `/webhooks/${webhook.id}`, { status: 'disabled' });
      expect(disabled.status).toBe(200);
      expect(disabled.body.webhook).toMatchObject({ status: 'disabled', disabled_reason: 'Disabled by the merchant' });
      const statuses = await db().query('SELECT id, status FROM webhook_deliveries WHERE webhook_id = $1', [
        webhook.id,
      ]);
      expect(Object.fromEntries(statuses.map((d: { id: string; status: string }) => [d.id, d.status]))).toEqual({
        [pending.id]: 'cancelled',
        [done.id]: 'succeeded',
      });

      const enabled = await call('webhooksMember', 'PATCH', `/webhooks/${webhook.id}`, { status: 'active' });
      expect(enabled.status).toBe(200);
      expect(enabled.body.webhook).toMatchObject({ status: 'active', disabled_reason: null });
      expect((await row(webhook.id)).disabled_reason).toBeNull();
    });

    it('re-enables a webhook the worker disabled; asking for the status it already has keeps its reason', async () => {
      const { webhook } = await register();
      await db().query(
        `UPDATE webhooks SET status = 'disabled', disabled_reason = '5 delivery attempts failed' WHERE id = $1`,
        [webhook.id],
      );
      const again = await call('owner', 'PATCH', `/webhooks/${webhook.id}`, { status: 'disabled' });
      expect(again.body.webhook).toMatchObject({ status: 'disabled', disabled_reason: '5 delivery attempts failed' });
      const enabled = await call('owner', 'PATCH', `/webhooks/${webhook.id}`, { status: 'active' });
      expect(enabled.body.webhook).toMatchObject({ status: 'active', disabled_reason: null });
    });

    it(
      'PATCH changes url and events (deduplicated), refuses ' +
        'nulls and bad values, and an empty body changes nothing',
      async () => {
        const { webhook } = await register();
        const changed = await call('owner', 'PATCH', `/webhooks/${webhook.id}`, {
          url: 'http://127.0.0.1:9/moved',
          events: ['customer.created', 'customer.created', 'inventory.updated'],
        });
        expect(changed.status).toBe(200);
        expect(changed.body.webhook).toMatchObject({
          url: 'http://127.0.0.1:9/moved',
          events: ['customer.created', 'inventory.updated'],
        });
        for (const body of [
          { url: null },
          { events: null },
          { events: [] },
          { events: ['nope'] },
          { status: 'paused' },
          { status: null },
          { store_id: storeId },
        ]) {
          const result = await call('owner', 'PATCH', `/webhooks/${webhook.id}`, body);
          expect(result.status, JSON.stringify(body)).toBe(400);
          expect(result.body.error.details[0].field).toBe(Object.keys(body)[0]);
        }
        const before = await row(webhook.id);
        const empty = await call('owner', 'PATCH', `/webhooks/${webhook.id}`, {});
        expect(empty.status).toBe(200);
        expect(empty.body.webhook).toMatchObject({
          url: 'http://127.0.0.1:9/moved',
          updated_at: before.updated_at.toISOString(),
        });
        expect(await row(webhook.id)).toEqual(before);
      },
    );

    it('DELETE removes the webhook and its delivery log', async () => {
      const { webhook } = await register();
      await insertDelivery(webhook.id);
      const removed = await call('webhooksMember', 'DELETE', `/webhooks/${webhook.id}`);
      expect(removed.status).toBe(200);
      expect(removed.body).toEqual({ success: true, message: 'Webhook deleted' });
      expect((await call('owner', 'GET', `/webhooks/${webhook.id}`)).status).toBe(404);
      expect((await call('owner', 'DELETE', `/webhooks/${webhook.id}`)).status).toBe(404);
      expect(
        (await db().query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1', [webhook.id]))[0]
          .n,
      ).toBe(0);
    });
  });

  describe('test events, the delivery log and redelivery', () => {
    it('test creates a webhook.test delivery with the documented envelope and enqueues its first attempt', async () => {
      const { webhook } = await register({ events: ['product.deleted'] });
      const before = Date.now();
      const result = await call('owner', 'POST', `/webhooks/${webhook.id}/test`);
      expect(result.status).toBe(201);
      const delivery = result.body.delivery;
      expect(delivery).toMatchObject({
        webhook_id: webhook.id,
        event: 'webhook.test',
        redelivery_of: null,
        attempts: [],
      });
      expect(delivery).not.toHaveProperty('body');
      expect(await queuedFirstAttempts(webhook.id)).toEqual([delivery.id]);

      const [stored] = await db().query('SELECT * FROM webhook_deliveries WHERE id = $1', [delivery.id]);
      expect(stored).toMatchObject({
        event: 'webhook.test',
        event_id: delivery.event_id,
        store_id: storeId,
        redelivery_of: null,
      });
      const envelope = JSON.parse(stored.body);
      expect(envelope).toEqual({
        id: delivery.event_id,
        event: 'webhook.test',
        created_at: expect.any(String),
        store_id: storeId,
        data: { webhook_id: webhook.id, message: 'This is a test event' },
      });
      expect(Object.keys(envelope)).toEqual(['id', 'event', 'created_at', 'store_id', 'data']);
      expect(new Date(envelope.created_at).toISOString()).toBe(envelope.created_at);
      expect(new Date(envelope.created_at).getTime()).toBeGreaterThanOrEqual(before - 1000);

      const second = await call('owner', 'POST', `/webhooks/${webhook.id}/test`);
      expect(second.body.delivery.event_id).not.toBe(delivery.event_id);
    });

    it('a disabled webhook refuses test, redeliver and recover with 409 and creates nothing', async () => {
      const { webhook } = await register();
      const original = await insertDelivery(webhook.id);
      await call('owner', 'PATCH', `/webhooks/${webhook.id}`, { status: 'disabled' });
      const since = new Date(Date.now() - HOUR).toISOString();
      for (const [path, body] of [
        [`/webhooks/${webhook.id}/test`],
        [`/webhooks/${webhook.id}/deliveries/${original.id}/redeliver`],
        [`/webhooks/${webhook.id}/recover`, { since }],
      ] as [string, unknown?][]) {
        const result = await call('owner', 'POST', path, body);
        expect(result.status, path).toBe(409);
        expect(result.body.error).toMatchObject({
          code: 'CONFLICT',
          details: { status: 'disabled', disabled_reason: 'Disabled by the merchant' },
        });
      }
      expect(
        (await db().query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1', [webhook.id]))[0]
          .n,
      ).toBe(1);
    });

    it('redeliver creates a new delivery of the same event, redelivery_of the original, and enqueues it', async () => {
      const { webhook } = await register();
      const original = await insertDelivery(webhook.id, { status: 'succeeded' });
      const result = await call(
        'webhooksMember',
        'POST',
        `/webhooks/${webhook.id}/deliveries/${original.id}/redeliver`,
      );
      expect(result.status).toBe(201);
      expect(result.body.delivery).toMatchObject({
        webhook_id: webhook.id,
        event_id: original.event_id,
        event: 'order.paid',
        status: 'pending',
        attempt_count: 0,
        redelivery_of: original.id,
        attempts: [],
      });
      expect(result.body.delivery.id).not.toBe(original.id);
      expect(await queuedFirstAttempts(webhook.id)).toEqual([result.body.delivery.id]);
      const [stored] = await db().query('SELECT body, redelivery_of FROM webhook_deliveries WHERE id = $1', [
        result.body.delivery.id,
      ]);
      expect(stored).toEqual({ body: original.body, redelivery_of: original.id });

      // A redelivery can itself be redelivered.
      const again = await call(
        'owner',
        'POST',
        `/webhooks/${webhook.id}/deliveries/${result.body.delivery.id}/redeliver`,
      );
      expect(again.body.delivery).toMatchObject({
        event_id: original.event_id,
        redelivery_of: result.body.delivery.id,
      });
    });

    it('redeliver answers 404 for an unknown delivery or one of another webhook, 400 for a malformed id', async () => {
      const { webhook } = await register();
      const { webhook: sibling } = await register();
      const theirs = await insertDelivery(sibling.id);
      expect(
        (await call('owner', 'POST', `/webhooks/${webhook.id}/deliveries/${randomUUID()}/redeliver`)).body.error,
      ).toEqual({
        code: 'NOT_FOUND',
        message: 'Delivery not found',
      });
      expect((await call('owner', 'POST', `/webhooks/${webhook.id}/deliveries/${theirs.id}/redeliver`)).status).toBe(
        404,
      );
      const malformed = await call('owner', 'POST', `/webhooks/${webhook.id}/deliveries/123/redeliver`);
      expect(malformed.status).toBe(400);
      expect(malformed.body.error.details[0].field).toBe('delivery_id');
      expect(
        (await db().query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE redelivery_of = $1', [theirs.id]))[0]
          .n,
      ).toBe(0);
    });

    it('the delivery log lists deliveries newest first with their attempts, filters by status, and pages', async () => {
      const { webhook } = await register();
      const t0 = Date.now() - 10 * 60_000;
      const ids: string[] = [];
      for (const [i, status] of (['failed', 'succeeded', 'pending', 'failed', 'cancelled'] as const).entries()) {
        ids.push((await insertDelivery(webhook.id, { status, createdAt: new Date(t0 + i * 1000) })).id);
      }
      const next = new Date(t0 + 60_000);
      await db().query(
        `INSERT INTO webhook_attempts (delivery_id, store_id, attempt, started_at, duration_ms, status_code, error,
          response_excerpt, next_attempt_at)
         VALUES ($1, $2, 2, $3, 12, 500, 'Receiver answered 500', 'oops', NULL),
           ($1, $2, 1, $3, 30, NULL, 'connect ECONNREFUSED', NULL, $4)`,
        [ids[3], storeId, new Date(t0 + 3000), next],
      );
      const all = await call('owner', 'GET', `/webhooks/${webhook.id}/deliveries`);
      expect(all.status).toBe(200);
      expect(all.body.data.map((d: { id: string }) => d.id)).toEqual([...ids].reverse());
      expect(all.body.next_cursor).toBeNull();
      const withAttempts = all.body.data.find((d: { id: string }) => d.id === ids[3]);
      expect(withAttempts.attempts).toEqual([
        {
          attempt: 1,
          started_at: new Date(t0 + 3000).toISOString(),
          duration_ms: 30,
          status_code: null,
          error: 'connect ECONNREFUSED',
          response_excerpt: null,
          next_attempt_at: next.toISOString(),
        },
        {
          attempt: 2,
          started_at: new Date(t0 + 3000).toISOString(),
          duration_ms: 12,
          status_code: 500,
          error: 'Receiver answered 500',
          response_excerpt: 'oops',
          next_attempt_at: null,
        },
      ]);
      expect(all.body.data.find((d: { id: string }) => d.id === ids[0]).attempts).toEqual([]);
      expectNoSecret(all.body);
      expect(JSON.stringify(all.body)).not.toContain('"body"');

      const failed = await call('owner', 'GET', `/webhooks/${webhook.id}/deliveries?status=failed`);
      expect(failed.body.data.map((d: { id: string }) => d.id)).toEqual([ids[3], ids[0]]);

      const first = await call('owner', 'GET', `/webhooks/${webhook.id}/deliveries?limit=2`);
      expect(first.body.data.map((d: { id: string }) => d.id)).toEqual([ids[4], ids[3]]);
      expect(first.body.next_cursor).toEqual(expect.any(String));
      const second = await call(
        'owner',
        'GET',
        `/webhooks/${webhook.id}/deliveries?limit=2&cursor=${first.body.next_cursor}`,
      );
      expect(second.body.data.map((d: { id: string }) => d.id)).toEqual([ids[2], ids[1]]);
      const third = await call(
        'owner',
        'GET',
        `/webhooks/${webhook.id}/deliveries?limit=2&cursor=${second.body.next_cursor}`,
      );
      expect(third.body.data.map((d: { id: string }) => d.id)).toEqual([ids[0]]);
      expect(third.body.next_cursor).toBeNull();

      for (const query of ['status=done', 'limit=0', 'limit=101', 'cursor=garbage']) {
        const bad = await call('owner', 'GET', `/webhooks/${webhook.id}/deliveries?${query}`);
        expect(bad.status, query).toBe(400);
        expect(bad.body.error.details[0].field).toBe(query.split('=')[0]);
      }
    });
  });

  describe('recover', () => {
    it('re-sends only the events whose latest delivery since then failed, was cancelled or skipped, once', async () => {
      const { webhook } = await register();
      const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);
      const failed = await insertDelivery(webhook.id, { status: 'failed', createdAt: minutesAgo(50) });
      const cancelled = await insertDelivery(webhook.id, { status: 'cancelled', createdAt: minutesAgo(40) });
      // Came while the webhook was disabled: never sent.
      const skipped = await insertDelivery(webhook.id, { status: 'skipped', createdAt: minutesAgo(25) });
      await insertDelivery(webhook.id, { status: 'succeeded', createdAt: minutesAgo(30) });
      await insertDelivery(webhook.id, { status: 'pending', createdAt: minutesAgo(30) });
      await insertDelivery(webhook.id, { status: 'failed', createdAt: minutesAgo(120) }); // before `since`
      // Failed, then redelivered successfully: nothing to recover.
      const healed = await insertDelivery(webhook.id, { status: 'failed', createdAt: minutesAgo(45) });
      await insertDelivery(webhook.id, {
        status: 'succeeded',
        createdAt: minutesAgo(20),
        eventId: healed.event_id,
        redeliveryOf: healed.id,
      });
      // Succeeded, then a redelivery of it failed: its latest delivery failed.
      const relapsed = await insertDelivery(webhook.id, { status: 'succeeded', createdAt: minutesAgo(35) });
      const relapse = await insertDelivery(webhook.id, {
        status: 'failed',
        createdAt: minutesAgo(10),
        eventId: relapsed.event_id,
        redeliveryOf: relapsed.id,
      });
      // Another webhook's failures are not this one's.
      const { webhook: sibling } = await register();
      await insertDelivery(sibling.id, { status: 'failed', createdAt: minutesAgo(15) });

      const since = minutesAgo(60).toISOString();
      const result = await call('webhooksMember', 'POST', `/webhooks/${webhook.id}/recover`, { since });
      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({ success: true, redelivered: 4, has_more: false });
      const byOriginal = Object.fromEntries(
        result.body.deliveries.map(
          (d: { redelivery_of: string; event_id: string; status: string; attempts: unknown[] }) => [d.redelivery_of, d],
        ),
      );
      expect(Object.keys(byOriginal).sort()).toEqual([failed.id, cancelled.id, skipped.id, relapse.id].sort());
      expect(byOriginal[skipped.id]).toMatchObject({ event_id: skipped.event_id, status: 'pending' });
      expect(byOriginal[failed.id]).toMatchObject({
        event_id: failed.event_id,
        status: 'pending',
        attempts: [],
        webhook_id: webhook.id,
      });
      expect(byOriginal[relapse.id].event_id).toBe(relapsed.event_id);
      expect(await queuedFirstAttempts(webhook.id)).toEqual(
        result.body.deliveries.map((d: { id: string }) => d.id).sort(),
      );
      const [stored] = await db().query('SELECT body FROM webhook_deliveries WHERE redelivery_of = $1', [failed.id]);
      expect(stored.body).toBe(failed.body);

      // The redeliveries are now those events' latest deliveries: a second call sends nothing.
      const again = await call('owner', 'POST', `/webhooks/${webhook.id}/recover`, { since });
      expect(again.body).toEqual({ success: true, redelivered: 0, deliveries: [], has_more: false });
      expect(
        (await db().query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1', [sibling.id]))[0]
          .n,
      ).toBe(1);
    });

    it('works in batches of 500, oldest first, saying when more remain', async () => {
      const { webhook } = await register();
      await db().query(
        `INSERT INTO webhook_deliveries (webhook_id, store_id, event_id, event, body, status, created_at)
         SELECT $1, $2, gen_random_uuid(), 'order.paid', '{}', 'failed',
           now() - interval '50 minutes' + n * interval '1 millisecond'
           FROM generate_series(1, 501) AS n`,
        [webhook.id, storeId],
      );
      const since = new Date(Date.now() - HOUR).toISOString();
      const first = await call('owner', 'POST', `/webhooks/${webhook.id}/recover`, { since });
      expect(first.body).toMatchObject({ redelivered: 500, has_more: true });
      expect(first.body.deliveries).toHaveLength(500);
      expect(await queuedFirstAttempts(webhook.id)).toEqual(
        first.body.deliveries.map((d: { id: string }) => d.id).sort(),
      );
      const [newest] = await db().query(
        `SELECT d.id FROM webhook_deliveries d WHERE d.webhook_id = $1 ` +
          `AND d.redelivery_of IS NULL ORDER BY created_at DESC LIMIT 1`,
        [webhook.id],
      );
      expect(first.body.deliveries.map((d: { redelivery_of: string }) => d.redelivery_of)).not.toContain(newest.id);
      const second = await call('owner', 'POST', `/webhooks/${webhook.id}/recover`, { since });
      expect(second.body).toMatchObject({ redelivered: 1, has_more: false });
      expect(second.body.deliveries[0].redelivery_of).toBe(newest.id);
    });

    it('since must be an ISO timestamp with a zone, not in the future, at most 30 days ago', async () => {
      const { webhook } = await register();
      const day = 24 * HOUR;
      const cases: [unknown, string][] = [
        [new Date(Date.now() + 60_000).toISOString(), 'in the future'],
        [new Date(Date.now() - 31 * day).toISOString(), '30 days'],
        ['yesterday', 'ISO 8601'],
        ['2026-11-21T00:00:00', 'time zone'],
        [1763683200000, ''],
        [undefined, ''],
      ];
      for (const [since, message] of cases) {
        const result = await call(
          'owner',
          'POST',
          `/webhooks/${webhook.id}/recover`,
          since === undefined ? {} : { since },
        );
        expect(result.status, String(since)).toBe(400);
        expect(result.body.error.details, String(since)).toContainEqual({
          field: 'since',
          message: expect.stringContaining(message),
        });
      }
      const edge = await call('owner', 'POST', `/webhooks/${webhook.id}/recover`, {
        since: new Date(Date.now() - 29 * day).toISOString(),
      });
      expect(edge.status).toBe(200);
    });
  });

  describe('lists', () => {
    it("lists a store's webhooks newest first, page by page", async () => {
      const shop = await merchantWithStore(api, 'Paged webhooks');
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const created = await api.request('POST', '/functions/v1/webhooks/register', {
          token: shop.token,
          body: { store_id: shop.storeId, url: `${DEAD_URL}/${i}`, events: ['order.paid'] },
        });
        ids.push(created.body.webhook.id);
      }
      const page = (query: string) =>
        api.request('GET', `/functions/v1/webhooks?store_id=${shop.storeId}${query}`, { token: shop.token });
      const first = await page('&limit=2');
      expect(first.body.data.map((w: { id: string }) => w.id)).toEqual([ids[2], ids[1]]);
      const second = await page(`&limit=2&cursor=${first.body.next_cursor}`);
      expect(second.body.data.map((w: { id: string }) => w.id)).toEqual([ids[0]]);
      expect(second.body.next_cursor).toBeNull();
      for (const webhook of [...first.body.data, ...second.body.data])
        expect(Object.keys(webhook).sort()).toEqual(WEBHOOK_FIELDS);
      expectNoSecret(first.body);
      expect((await page('&limit=500')).status).toBe(400);
    });

    it("lists the store's notifications only, newest first, page by page", async () => {
      const insert = (store: string, message: string, at: Date) =>
        db().query(
          `INSERT INTO merchant_notifications (store_id, kind, message, data, ` +
            `created_at) VALUES ($1, 'webhook.disabled', $2, $3, $4) RETURNING id`,
          [store, message, JSON.stringify({ webhook_id: randomUUID(), reason: message }), at],
        );
      const t0 = Date.now() - 60_000;
      const [[older], [newer]] = [
        await insert(storeId, 'first notice', new Date(t0)),
        await insert(storeId, 'second notice', new Date(t0 + 1000)),
      ];
      await insert(otherStoreId, 'not yours', new Date(t0 + 2000));

      const all = await call('webhooksMember', 'GET', `/notifications?store_id=${storeId}`);
      expect(all.status).toBe(200);
      expect(all.body.data.map((n: { id: string }) => n.id)).toEqual([newer.id, older.id]);
      expect(all.body.data[0]).toEqual({
        id: newer.id,
        store_id: storeId,
        kind: 'webhook.disabled',
        message: 'second notice',
        data: { webhook_id: expect.any(String), reason: 'second notice' },
        created_at: new Date(t0 + 1000).toISOString(),
      });
      expect(JSON.stringify(all.body)).not.toContain('not yours');

      const first = await call('owner', 'GET', `/notifications?store_id=${storeId}&limit=1`);
      expect(first.body.data.map((n: { id: string }) => n.id)).toEqual([newer.id]);
      const second = await call(
        'owner',
        'GET',
        `/notifications?store_id=${storeId}&limit=1&cursor=${first.body.next_cursor}`,
      );
      expect(second.body.data.map((n: { id: string }) => n.id)).toEqual([older.id]);
      expect(second.body.next_cursor).toBeNull();

      const theirs = await call('otherOwner', 'GET', `/notifications?store_id=${otherStoreId}`);
      expect(theirs.body.data.map((n: { message: string }) => n.message)).toEqual(['not yours']);
      expect((await call('owner', 'GET', '/notifications')).status).toBe(400);
    });
  });

  it('documents every route in /docs-json with a summary, a description and a typed answer', async () => {
    const doc = (await api.request('GET', '/docs-json')).body;
    const routes: [string, string, string][] = [
      ['post', '/functions/v1/webhooks/register', '201'],
      ['get', '/functions/v1/webhooks', '200'],
      ['get', '/functions/v1/webhooks/{webhook_id}', '200'],
      ['patch', '/functions/v1/webhooks/{webhook_id}', '200'],
      ['delete', '/functions/v1/webhooks/{webhook_id}', '200'],
      ['post', '/functions/v1/webhooks/{webhook_id}/rotate-secret', '200'],
      ['post', '/functions/v1/webhooks/{webhook_id}/test', '201'],
      ['get', '/functions/v1/webhooks/{webhook_id}/deliveries', '200'],
      ['post', '/functions/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver', '201'],
      ['post', '/functions/v1/webhooks/{webhook_id}/recover', '200'],
      ['get', '/functions/v1/notifications', '200'],
      ['get', '/functions/v1/stores/{store_id}/events', '200'],
    ];
    for (const [method, path, status] of routes) {
      const operation = doc.paths[path]?.[method];
      expect(operation, `${method} ${path}`).toBeDefined();
      expect(operation.summary, `${method} ${path}`).toBeTruthy();
      expect(operation.description, `${method} ${path}`).toBeTruthy();
      const schema = operation.responses[status]?.content?.['application/json']?.schema;
      expect(schema?.properties?.success, `${method} ${path}`).toMatchObject({ type: 'boolean', enum: [true] });
      expect(operation.responses['404'] ?? operation.responses['403'], `${method} ${path}`).toBeDefined();
    }
    const register = doc.paths['/functions/v1/webhooks/register'].post;
    expect(Object.keys(register.requestBody.content['application/json'].examples)).toEqual(['generated', 'supplied']);
    // The generated secret is answered once, so only `webhook` is always there.
    const registered = register.responses['201'].content['application/json'].schema;
    expect(registered.required).toEqual(['success', 'webhook']);
    expect(registered.properties.webhook).toEqual({ $ref: '#/components/schemas/WebhookView' });
    expect(Object.keys(registered.properties)).toEqual(['success', 'webhook', 'secret']);
    const deliveries =
      doc.paths['/functions/v1/webhooks/{webhook_id}/deliveries'].get.responses['200'].content['application/json']
        .schema;
    expect(deliveries.properties.data).toEqual({ type: 'array', items: { $ref: '#/components/schemas/DeliveryView' } });
    expect(doc.components.schemas.DeliveryView.properties.attempts).toMatchObject({
      items: { $ref: '#/components/schemas/AttemptView' },
    });
  });
});
