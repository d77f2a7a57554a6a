import { DataSource } from 'typeorm';
import { WebhookReceiver } from './fakes/webhook-receiver.js';
import { merchantWithStore, signUp, startApp, uniqueEmail, type TestApp } from './support/app.js';
import { asRequest, createPrivateDatabase, SYSTEM_DATA_SOURCE } from './support/database.js';
import { until } from './support/wait.js';

type Who = 'owner' | 'webhooksMember' | 'catalogMember' | 'customer' | 'otherOwner';
interface Page {
  data: Envelope[];
  next_cursor: string | null;
  error?: { message: string };
}
interface Envelope {
  id: string;
  event: string;
  created_at: string;
  store_id: string;
  data: Record<string, unknown>;
}

/**
 * `GET /functions/v1/stores/{store_id}/events`: a store's events, oldest first, exactly as its
 * webhooks receive them, for staff with the `webhooks` permission, and row-level security on the
 * outbox for requests. The real relay and worker deliver the same events to a receiver on 127.0.0.1.
 */
describe('store events listing', () => {
  let api: TestApp;
  let database: Awaited<ReturnType<typeof createPrivateDatabase>>;
  let receiver: WebhookReceiver;
  let storeA: string;
  let storeB: string;
  const tokens = {} as Record<Who, string>;
  const db = () => api.app.get<DataSource>(SYSTEM_DATA_SOURCE);
  const call = (who: Who, method: string, path: string, body?: unknown) =>
    api.request(method, `/functions/v1${path}`, { token: tokens[who], ...(body === undefined ? {} : { body }) });
  const list = async (who: Who, store: string, query = '') => {
    const result = await call(who, 'GET', `/stores/${store}/events${query}`);
    return result as { status: number; body: Page };
  };
  /** The store's event ids as the outbox orders them. */
  const outboxIds = async (store: string) =>
    (await db().query('SELECT id FROM outbox_events WHERE store_id = $1 ORDER BY created_at, id', [store])).map(
      (r: { id: string }) => r.id,
    );

  beforeAll(async () => {
    receiver = new WebhookReceiver();
    const base = await receiver.start();
    database = await createPrivateDatabase('store_events');
    api = await startApp({
      DATABASE_URL: database.url,
      OUTBOX_RELAY: 'true',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}store-events:`,
    });
    const [a, b] = [await merchantWithStore(api, 'Events A'), await merchantWithStore(api, 'Events B')];
    [storeA, storeB, tokens.owner, tokens.otherOwner] = [a.storeId, b.storeId, a.token, b.token];

    const kinds = ['product.created', 'customer.created', 'order.created', 'inventory.updated'];
    const webhook = { store_id: storeA, url: `${base}/ok/a`, events: kinds };
    const hook = await call('owner', 'POST', '/webhooks/register', webhook);
    expect(hook.status).toBe(201);
    const product = await call('owner', 'POST', `/stores/${storeA}/products`, {
      name: 'Listed mug',
      price: 9.99,
      inventory_quantity: 10,
      status: 'active',
    });
    const productId = product.body.product.id as string;
    await call('owner', 'POST', `/stores/${storeA}/customers`, { name: 'Ada', email: 'ada@example.com' });
    // Placing an order writes order.created and inventory.updated in one statement, microseconds apart.
    for (let i = 0; i < 2; i++) {
      const items = [{ product_id: productId, quantity: 1 }];
      const order = await call('owner', 'POST', `/stores/${storeA}/orders`, { items });
      expect(order.status).toBe(201);
    }
    const member = async (permissions: string[]) => {
      const email = uniqueEmail('member');
      const invite = await call('owner', 'POST', `/stores/${storeA}/members`, { email, permissions });
      return (await signUp(api, { invite_token: invite.body.invite_token }, email)).access_token;
    };
    tokens.webhooksMember = await member(['webhooks']);
    tokens.catalogMember = await member(['catalog', 'orders', 'customers']);
    // A customer's sign-up is an event of the store too (customer.created).
    tokens.customer = (await signUp(api, { role: 'customer', store_id: storeA })).access_token;
    const notA = { name: 'Not A', price: 1, inventory_quantity: 1, status: 'active' };
    await call('otherOwner', 'POST', `/stores/${storeB}/products`, notA);
    const expected = (await outboxIds(storeA)).length;
    await until(() => receiver.to('/ok/a').length >= expected, "store A's events delivered");
  });
  afterAll(async () => {
    await api?.close();
    await receiver?.stop();
    await database?.drop();
  });

  it("lists the store's envelopes oldest first, each the very bytes its webhook received", async () => {
    const ids = await outboxIds(storeA);
    const page = await list('owner', storeA, '?limit=100');
    expect(page.status).toBe(200);
    expect(page.body.next_cursor).toBeNull();
    expect(page.body.data.map((event) => event.id)).toEqual(ids);
    const orderEvents = ['order.created', 'inventory.updated'];
    const kinds = ['product.created', 'customer.created', ...orderEvents, ...orderEvents, 'customer.created'];
    expect(page.body.data.map((event) => event.event)).toEqual(kinds);
    expect(page.body.data.every((event) => event.store_id === storeA)).toBe(true);
    const received = receiver.to('/ok/a');
    const bodies = new Map(received.map((request) => [JSON.parse(request.body).id as string, request.body]));
    for (const event of page.body.data) {
      expect(Object.keys(event)).toEqual(['id', 'event', 'created_at', 'store_id', 'data']);
      expect(JSON.stringify(event)).toBe(bodies.get(event.id));
    }
  });

  it('filters by type and since, and pages with the cursor through events microseconds apart', async () => {
    const all = (await list('owner', storeA, '?limit=100')).body.data;
    const orders = await list('owner', storeA, '?type=order.created');
    const ids = (events: Envelope[]) => events.map((event) => event.id);
    expect(ids(orders.body.data)).toEqual(ids(all.filter((e) => e.event === 'order.created')));
    const since = encodeURIComponent(all[2].created_at);
    const later = await list('owner', storeA, `?since=${since}&limit=100`);
    expect(ids(later.body.data)).toEqual(ids(all.filter((e) => e.created_at >= all[2].created_at)));
    const future = encodeURIComponent(new Date(Date.now() + 60_000).toISOString());
    expect((await list('owner', storeA, `?since=${future}`)).body.data).toEqual([]);

    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await list('owner', storeA, `?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.body.data.length).toBe(1);
      walked.push(page.body.data[0].id);
      expect(walked.length).toBeLessThanOrEqual(all.length);
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(walked).toEqual(all.map((event) => event.id));
    const firstTwo = await list('owner', storeA, '?limit=2');
    const rest = await list('owner', storeA, `?limit=100&cursor=${firstTwo.body.next_cursor}`);
    expect([...firstTwo.body.data, ...rest.body.data].map((event) => event.id)).toEqual(all.map((event) => event.id));

    const refusals = ['type=order.payed', 'type=webhook.test', 'since=yesterday', 'since=2026-11-21T00:00:00'];
    refusals.push('limit=0', 'limit=101', 'type=order.paid&type=order.created', 'since=0000-01-01T00:00:00Z&since=x');
    for (const query of refusals) {
      const refused = await list('owner', storeA, `?${query}`);
      expect(refused.status, query).toBe(400);
      expect(JSON.stringify(refused.body.error), query).toContain(query.split('=')[0]);
    }
    expect((await list('owner', storeA, '?cursor=garbage')).status).toBe(400);
    // Before 1970 nothing was written: the whole list.
    const early = await list('owner', storeA, '?since=1900-01-01T00:00:00Z&limit=100');
    expect(early.body, JSON.stringify(early.body)).toHaveProperty('data', all);
  });

  it('answers staff holding webhooks; a customer or a member without it 403, another store 404', async () => {
    const owners = (await list('owner', storeA, '?limit=100')).body.data;
    const members = await list('webhooksMember', storeA, '?limit=100');
    expect(members.status).toBe(200);
    expect(members.body.data).toEqual(owners);
    expect((await list('catalogMember', storeA)).status).toBe(403);
    expect((await list('customer', storeA)).status).toBe(403);
    const stranger = await list('otherOwner', storeA);
    expect(stranger.status).toBe(404);
    expect(JSON.stringify(stranger.body)).not.toContain('Listed mug');
    expect((await list('owner', storeB)).status).toBe(404);
    expect((await list('owner', '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const theirs = await list('otherOwner', storeB);
    const seen = theirs.body.data.map((event) => [event.event, event.store_id, event.data.name]);
    expect(seen).toEqual([['product.created', storeB, 'Not A']]);
  });

  it("lets a request read only the envelope of its stores' events, and only holding webhooks", async () => {
    const storesSeen = (who: Who) =>
      asRequest(api, tokens[who], async (q) =>
        (await q('SELECT DISTINCT store_id FROM outbox_events')).map((r: { store_id: string }) => r.store_id),
      );
    expect(await storesSeen('owner')).toEqual([storeA]);
    expect(await storesSeen('webhooksMember')).toEqual([storeA]);
    expect(await storesSeen('otherOwner')).toEqual([storeB]);
    expect(await storesSeen('catalogMember')).toEqual([]);
    expect(await storesSeen('customer')).toEqual([]);
    for (const statement of ['SELECT dispatched_at FROM outbox_events', 'UPDATE outbox_events SET data = data']) {
      await expect(
        asRequest(api, tokens.owner, (q) => q(statement)),
        statement,
      ).rejects.toThrow(/permission denied/);
    }
  });
});
