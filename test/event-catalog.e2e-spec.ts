import { Ajv, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import { DataSource } from 'typeorm';
import { STORE_EVENT_CATALOG, STORE_EVENT_NAMES, storeEventSchemaName } from '@app/webhooks';
import { merchantWithStore, signUp, startApp, type TestApp } from './support/app.js';
import { SYSTEM_DATA_SOURCE } from './support/database.js';

/**
 * The event catalog against what the app really writes: one store's life through the API raises
 * every event of the catalog, and each event's `data` in the outbox validates against the catalog's
 * schema (so a change to a payload builder that the schema does not follow fails here). The OpenAPI
 * document carries each event's schema.
 */
describe('the store event catalog and the events the app raises', () => {
  let api: TestApp;
  let owner: { token: string; storeId: string };
  const validators = new Map<string, ValidateFunction>();

  beforeAll(async () => {
    api = await startApp();
    owner = await merchantWithStore(api, 'Catalog store');
    const ajv = new Ajv({ strict: true, allErrors: true });
    formats.default(ajv);
    for (const name of STORE_EVENT_NAMES) validators.set(name, ajv.compile(STORE_EVENT_CATALOG[name].schema));
  });
  afterAll(async () => {
    // Nothing left for a later file's relay to pick up.
    await api.app
      .get<DataSource>(SYSTEM_DATA_SOURCE)
      .query('DELETE FROM outbox_events WHERE store_id = $1', [owner.storeId]);
    await api.close();
  });

  it('a store’s life raises every catalog event, each with data its schema accepts', async () => {
    const call = async (method: string, path: string, body?: unknown, token = owner.token) => {
      const result = await api.request(method, path, { token, body });
      expect(result.status, `${method} ${path}: ${JSON.stringify(result.body)}`).toBeLessThan(300);
      return result.body;
    };
    const { storeId } = owner;
    const product = (
      await call('POST', `/functions/v1/stores/${storeId}/products`, {
        name: 'Mug',
        price: 9.5,
        status: 'active',
        inventory_quantity: 10,
      })
    ).product.id;
    await call('PATCH', `/functions/v1/products/${product}`, { price: 11, compare_price: null, category: null });
    await call('POST', `/functions/v1/products/${product}/inventory`, { delta: 5, reason: 'restock' });
    const customer = (
      await call('POST', `/functions/v1/stores/${storeId}/customers`, { name: 'Grace', email: 'grace@example.com' })
    ).customer.id;
    await call('PATCH', `/functions/v1/customers/${customer}`, { name: 'Grace H.' });
    // A customer signing up to the store, and ordering as themself (`customer` null when staff order without one).
    const shopper = await signUp(api, { role: 'customer', store_id: storeId, full_name: 'Ada Shopper' });
    const place = (token = owner.token) =>
      call('POST', `/functions/v1/stores/${storeId}/orders`, { items: [{ product_id: product, quantity: 2 }] }, token);
    const delivered = (await place()).order.id;
    for (const status of ['paid', 'shipped', 'delivered', 'refunded'])
      await call('PATCH', `/functions/v1/orders/${delivered}`, { status });
    const cancelled = (await place(shopper.access_token)).order.id;
    await call('PATCH', `/functions/v1/orders/${cancelled}`, { status: 'cancelled' }, shopper.access_token);
    const gone = (await call('POST', `/functions/v1/stores/${storeId}/products`, { name: 'Gone', price: 1 })).product
      .id;
    await call('DELETE', `/functions/v1/products/${gone}`);

    const rows: { event: string; data: unknown }[] = await api.app
      .get<DataSource>(SYSTEM_DATA_SOURCE)
      .query('SELECT event, data FROM outbox_events WHERE store_id = $1 ORDER BY created_at', [storeId]);
    expect([...new Set(rows.map((row) => row.event))].sort()).toEqual([...STORE_EVENT_NAMES].sort());
    const invalid = rows
      .map((row) => ({ ...row, validate: validators.get(row.event)! }))
      .filter(({ validate, data }) => !validate(data))
      .map(({ event, data, validate }) => `${event} ${JSON.stringify(data)}: ${JSON.stringify(validate.errors)}`);
    expect(invalid).toEqual([]);
    // The customer's order names its customer; the staff order names none (data nullable as the schema says).
    expect(
      rows.filter((row) => row.event === 'order.created').map((row) => (row.data as { customer: unknown }).customer),
    ).toEqual([null, { name: 'Ada Shopper', email: expect.stringContaining('@example.com') }]);
  });

  it(
    '/docs-json has one schema per catalog event, with its ' + 'example, and the webhook callback that delivers them',
    async () => {
      const doc = (await api.request('GET', '/docs-json')).body;
      for (const name of STORE_EVENT_NAMES) {
        const schema = doc.components.schemas[storeEventSchemaName(name)];
        expect(schema, name).toBeDefined();
        expect(schema.properties.event.enum).toEqual([name]);
        expect(schema.properties.data).toEqual(JSON.parse(JSON.stringify(STORE_EVENT_CATALOG[name].schema)));
        expect(schema.example.data).toEqual(STORE_EVENT_CATALOG[name].example);
      }
      // Registering a webhook documents what it will receive: a callback whose body is one of these schemas, by
      // `event`.
      const delivery =
        doc.paths['/functions/v1/webhooks/register'].post.callbacks.storeEvent['{$request.body#/url}'].post;
      const body = delivery.requestBody.content['application/json'].schema;
      const refs = STORE_EVENT_NAMES.map((name) => `#/components/schemas/${storeEventSchemaName(name)}`);
      expect(body.oneOf).toEqual(refs.map(($ref) => ({ $ref })));
      expect(body.discriminator).toEqual({
        propertyName: 'event',
        mapping: Object.fromEntries(STORE_EVENT_NAMES.map((name, i) => [name, refs[i]])),
      });
      expect(delivery.parameters.map((parameter: { name: string }) => parameter.name)).toEqual(
        expect.arrayContaining(['webhook-id', 'webhook-timestamp', 'webhook-signature', 'X-Service-Signature']),
      );
    },
  );
});
