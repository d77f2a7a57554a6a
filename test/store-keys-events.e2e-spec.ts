import type { DataSource } from 'typeorm';
import { WebhookReceiver } from './fakes/webhook-receiver.js';
import { merchantWithStore, startApp, type TestApp } from './support/app.js';
import { createPrivateDatabase, SYSTEM_DATA_SOURCE } from './support/database.js';
import { until } from './support/wait.js';

const LIMIT = 8;

/**
 * What a store key's changes leave behind once the relay and the deliveries run (a database of its
 * own, so that no other file's relay takes its events): the stored event names the key, the webhook
 * envelope keeps exactly the seed's fields. And the rate limit counts each key apart (a small limit).
 */
describe('store keys: events and rate limits', () => {
  let api: TestApp;
  let database: Awaited<ReturnType<typeof createPrivateDatabase>>;
  let receiver: WebhookReceiver;
  let owner: { token: string; storeId: string };
  const db = () => api.app.get<DataSource>(SYSTEM_DATA_SOURCE);
  const makeKey = async (permissions: string[]) =>
    (
      await api.request('POST', `/functions/v1/stores/${owner.storeId}/api-keys`, {
        token: owner.token,
        body: { name: 'Events', permissions },
      })
    ).body as { api_key: { id: string }; secret: string };

  beforeAll(async () => {
    receiver = new WebhookReceiver();
    const base = await receiver.start();
    database = await createPrivateDatabase('store_keys_events');
    api = await startApp({
      DATABASE_URL: database.url,
      OUTBOX_RELAY: 'true',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      RATE_LIMIT_PER_MINUTE: String(LIMIT),
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}store-keys-events:`,
    });
    owner = await merchantWithStore(api, 'Events key store');
    const hook = await api.request('POST', '/functions/v1/webhooks/register', {
      token: owner.token,
      body: { store_id: owner.storeId, url: `${base}/ok/products`, events: ['product.created'] },
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
  });
  afterAll(async () => {
    await api?.close();
    await receiver?.stop();
    await database?.drop();
  });

  it(
    'the stored event names the key; the delivered ' + 'envelope has the same fields as a user’s, and no actor',
    async () => {
      const key = await makeKey(['catalog']);
      const byKey = await api.request('POST', `/functions/v1/stores/${owner.storeId}/products`, {
        token: key.secret,
        body: { name: 'From the warehouse', price: 2 },
      });
      expect(byKey.status, JSON.stringify(byKey.body)).toBe(201);
      const byOwner = await api.request('POST', `/functions/v1/stores/${owner.storeId}/products`, {
        token: owner.token,
        body: { name: 'From the owner', price: 2 },
      });
      expect(byOwner.status).toBe(201);

      const delivered = await until(() => {
        const bodies = receiver.to('/ok/products').map((request) => JSON.parse(request.body));
        return bodies.length >= 2 ? bodies : null;
      }, 'both product.created deliveries');
      const ofKey = delivered.find((body) => body.data.product_id === byKey.body.product.id);
      const ofOwner = delivered.find((body) => body.data.product_id === byOwner.body.product.id);
      expect(Object.keys(ofKey).sort()).toEqual(Object.keys(ofOwner).sort());
      for (const request of receiver.to('/ok/products')) expect(request.body).not.toContain('actor');

      const [stored] = await db().query(`SELECT actor FROM outbox_events WHERE data->>'product_id' = $1`, [
        byKey.body.product.id,
      ]);
      expect(stored.actor).toEqual({ type: 'api_key', id: key.api_key.id });
    },
  );

  it('counts each key apart from the other keys and from the owner', async () => {
    const [first, second] = [await makeKey(['catalog']), await makeKey(['catalog'])];
    const read = (token: string) => api.request('GET', `/functions/v1/stores/${owner.storeId}/products`, { token });
    for (let i = 0; i < LIMIT; i++) expect((await read(first.secret)).status).toBe(200);
    const limited = await read(first.secret);
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ code: 'RATE_LIMITED', details: { limit: LIMIT } });
    expect((await read(second.secret)).status).toBe(200);
    expect((await read(owner.token)).status).toBe(200);
  });
});
