import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import {
  PUBLIC_KEY,
  merchantWithStore,
  signUp,
  startApp,
  uniqueEmail,
  type HttpResult,
  type TestApp,
  TEST_ADMIN,
} from './support/app.js';
import { SYSTEM_DATA_SOURCE } from './support/database.js';

/**
 * Orders: every route with every role, server-side prices, all-or-nothing stock,
 * gapless order numbers under concurrency, the status machine, and the events each change appends
 * to the outbox (read straight from `outbox_events`).
 */
describe('orders', () => {
  let api: TestApp;
  let storeA: string;
  let storeB: string;
  const tokens: Record<
    'owner' | 'ordersMember' | 'catalogMember' | 'customer' | 'customer2' | 'admin' | 'otherOwner' | 'otherCustomer',
    string
  > = {} as never;
  type Who = keyof typeof tokens;
  let customer: { id: string; name: string; email: string };
  let customer2: { id: string; name: string; email: string };
  let otherStoreCustomerId: string;
  const adminEmail = TEST_ADMIN.email;

  const db = () => api.app.get<DataSource>(SYSTEM_DATA_SOURCE);
  const call = (who: Who, method: string, path: string, body?: unknown): Promise<HttpResult> =>
    api.request(method, `/functions/v1${path}`, { token: tokens[who], body });
  const events = async (storeId: string) =>
    (await db().query('SELECT event, data FROM outbox_events WHERE store_id = $1 ORDER BY created_at, id', [
      storeId,
    ])) as {
      event: string;
      data: Record<string, any>;
    }[];
  const stock = async (productId: string): Promise<number> =>
    (await db().query('SELECT inventory_quantity FROM products WHERE id = $1', [productId]))[0].inventory_quantity;
  const orderCount = async (storeId: string): Promise<number> =>
    Number((await db().query('SELECT count(*) AS n FROM orders WHERE store_id = $1', [storeId]))[0].n);
  const customerOf = async (userId: string) =>
    (await db().query('SELECT id, name, email FROM customers WHERE user_id = $1', [userId]))[0] as {
      id: string;
      name: string;
      email: string;
    };

  /** An active product (unless told otherwise) of the store, created through the API. */
  const product = async (
    storeId: string,
    fields: { name?: string; price?: number; inventory_quantity?: number; status?: string } = {},
    who: Who = 'owner',
  ): Promise<string> => {
    const created = await call(who, 'POST', `/stores/${storeId}/products`, {
      name: 'Item',
      price: 10,
      inventory_quantity: 100,
      status: 'active',
      ...fields,
    });
    if (created.status !== 201) throw new Error(`product creation failed: ${JSON.stringify(created.body)}`);
    return created.body.product.id;
  };
  const place = (who: Who, storeId: string, body: Record<string, unknown>) =>
    call(who, 'POST', `/stores/${storeId}/orders`, body);
  const move = (who: Who, orderId: string, status: string) => call(who, 'PATCH', `/orders/${orderId}`, { status });
  const fields = (result: HttpResult) => result.body.error.details.map((d: { field: string }) => d.field);

  beforeAll(async () => {
    api = await startApp({ ADMIN_EMAIL: adminEmail, ADMIN_PASSWORD: TEST_ADMIN.password });
    tokens.owner = (await signUp(api)).access_token;
    storeA = (await call('owner', 'POST', '/stores', { name: 'Order store', currency: 'EUR' })).body.store.id;
    const other = await merchantWithStore(api, 'Other store');
    tokens.otherOwner = other.token;
    storeB = other.storeId;
    const member = async (permissions: string[]) => {
      const email = uniqueEmail('member');
      const invite = await call('owner', 'POST', `/stores/${storeA}/members`, { email, permissions });
      return (await signUp(api, { invite_token: invite.body.invite_token }, email)).access_token;
    };
    tokens.ordersMember = await member(['orders']);
    tokens.catalogMember = await member(['catalog', 'customers']);
    const shopper = await signUp(api, { role: 'customer', store_id: storeA, full_name: 'Ada Lovelace' });
    tokens.customer = shopper.access_token;
    customer = await customerOf(shopper.user.id);
    const shopper2 = await signUp(api, { role: 'customer', store_id: storeA, full_name: 'Alan Turing' });
    tokens.customer2 = shopper2.access_token;
    customer2 = await customerOf(shopper2.user.id);
    const otherShopper = await signUp(api, { role: 'customer', store_id: storeB });
    tokens.otherCustomer = otherShopper.access_token;
    otherStoreCustomerId = (await customerOf(otherShopper.user.id)).id;
    const admin = await api.request('POST', '/auth/v1/token?grant_type=password', {
      headers: { apikey: PUBLIC_KEY },
      body: { email: adminEmail, password: TEST_ADMIN.password },
    });
    tokens.admin = admin.body.access_token;
  });
  afterAll(() => api.close());

  describe('placing', () => {
    it(
      'prices from the catalog in exact cents, reserves stock ' +
        'and fires order.created + inventory.updated per item',
      async () => {
        const mug = await product(storeA, { name: 'Mug', price: 12.5, inventory_quantity: 10 });
        const pin = await product(storeA, { name: 'Pin', price: 0.1, inventory_quantity: 5 });
        const before = (await events(storeA)).length;
        const placed = await place('owner', storeA, {
          customer_id: customer.id,
          items: [
            { product_id: mug, quantity: 2 },
            { product_id: pin, quantity: 1 },
          ],
        });
        expect(placed.status).toBe(201);
        const order = placed.body.order;
        expect(placed.body).toEqual({
          success: true,
          order: {
            id: expect.any(String),
            store_id: storeA,
            order_number: expect.stringMatching(/^1\d{3}$/),
            status: 'pending',
            currency: 'EUR',
            total: 25.1,
            customer: { id: customer.id, name: 'Ada Lovelace', email: customer.email },
            items: [
              { product_id: mug, name: 'Mug', quantity: 2, price: 12.5 },
              { product_id: pin, name: 'Pin', quantity: 1, price: 0.1 },
            ],
            created_at: expect.any(String),
            updated_at: expect.any(String),
          },
        });
        expect(new Date(order.created_at).toISOString()).toBe(order.created_at);
        expect((await db().query('SELECT total::text AS total FROM orders WHERE id = $1', [order.id]))[0].total).toBe(
          '25.10',
        );
        expect(await stock(mug)).toBe(8);
        expect(await stock(pin)).toBe(4);

        const fired = (await events(storeA)).slice(before);
        expect(fired).toEqual([
          {
            event: 'order.created',
            data: {
              order_id: order.id,
              order_number: order.order_number,
              total: 25.1,
              currency: 'EUR',
              status: 'pending',
              customer: { name: 'Ada Lovelace', email: customer.email },
              items: [
                { product_id: mug, name: 'Mug', quantity: 2, price: 12.5 },
                { product_id: pin, name: 'Pin', quantity: 1, price: 0.1 },
              ],
            },
          },
          {
            event: 'inventory.updated',
            data: {
              product_id: mug,
              previous_quantity: 10,
              quantity: 8,
              delta: -2,
              reason: `order ${order.order_number}`,
            },
          },
          {
            event: 'inventory.updated',
            data: {
              product_id: pin,
              previous_quantity: 5,
              quantity: 4,
              delta: -1,
              reason: `order ${order.order_number}`,
            },
          },
        ]);
      },
    );

    it('sums money exactly where floating point would not (1 × 0.10 + 1 × 0.20 = 0.30, 3 × 0.10 = 0.30)', async () => {
      const dime = await product(storeA, { name: 'Dime', price: 0.1 });
      const twenty = await product(storeA, { name: 'Twenty', price: 0.2 });
      expect(0.1 + 0.2).not.toBe(0.3);
      expect(0.1 * 3).not.toBe(0.3);
      const pair = await place('owner', storeA, {
        items: [
          { product_id: dime, quantity: 1 },
          { product_id: twenty, quantity: 1 },
        ],
      });
      expect(pair.body.order.total).toBe(0.3);
      expect(pair.body.order.customer).toBeNull();
      expect((await place('owner', storeA, { items: [{ product_id: dime, quantity: 3 }] })).body.order.total).toBe(0.3);
    });

    it('refuses a client price or total (unknown fields) and never lets one influence the total', async () => {
      const id = await product(storeA, { name: 'Priced', price: 40, inventory_quantity: 3 });
      const before = { events: (await events(storeA)).length, orders: await orderCount(storeA) };
      const withPrice = await place('owner', storeA, { items: [{ product_id: id, quantity: 1, price: 0.01 }] });
      expect(withPrice.status).toBe(400);
      expect(withPrice.body.error).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ field: 'items.0.price', message: 'is not a known field' }],
      });
      const withTotal = await place('owner', storeA, { items: [{ product_id: id, quantity: 1 }], total: 0.01 });
      expect(withTotal.status).toBe(400);
      expect(fields(withTotal)).toEqual(['total']);
      expect(await stock(id)).toBe(3);
      expect((await events(storeA)).length).toBe(before.events);
      expect(await orderCount(storeA)).toBe(before.orders);
      const honest = await place('customer', storeA, { items: [{ product_id: id, quantity: 2 }] });
      expect(honest.body.order.total).toBe(80);
      expect(honest.body.order.items[0].price).toBe(40);
    });

    it('validates items: 1 to 100, quantity an integer 1 to 10,000, each product once', async () => {
      const id = await product(storeA, { name: 'Valid', inventory_quantity: 20_000 });
      const others = Array.from({ length: 100 }, () => randomUUID());
      const cases: [Record<string, unknown>, string][] = [
        [{}, 'items'],
        [{ items: [] }, 'items'],
        [{ items: 'all' }, 'items'],
        [{ items: [...others, id].map((product_id) => ({ product_id, quantity: 1 })) }, 'items'],
        [{ items: [{ product_id: id, quantity: 0 }] }, 'items.0.quantity'],
        [{ items: [{ product_id: id, quantity: 10_001 }] }, 'items.0.quantity'],
        [{ items: [{ product_id: id, quantity: 1.5 }] }, 'items.0.quantity'],
        [{ items: [{ product_id: id, quantity: '2' }] }, 'items.0.quantity'],
        [{ items: [{ product_id: id }] }, 'items.0.quantity'],
        [{ items: [{ product_id: 'not-a-uuid', quantity: 1 }] }, 'items.0.product_id'],
        [{ items: [{ quantity: 1 }] }, 'items.0.product_id'],
        [{ items: ['x'] }, 'items.0'],
        [
          {
            items: [
              { product_id: id, quantity: 1 },
              { product_id: id, quantity: 2 },
            ],
          },
          'items',
        ],
        [
          {
            items: [
              { product_id: id, quantity: 1 },
              { product_id: id.toUpperCase(), quantity: 2 },
            ],
          },
          'items',
        ],
        [{ customer_id: 'me', items: [{ product_id: id, quantity: 1 }] }, 'customer_id'],
      ];
      for (const [body, field] of cases) {
        const result = await place('owner', storeA, body);
        expect(result.status, JSON.stringify(body).slice(0, 200)).toBe(400);
        expect(fields(result), JSON.stringify(body).slice(0, 200)).toContain(field);
      }
      expect(await stock(id)).toBe(20_000);
      const most = await place('owner', storeA, { items: [{ product_id: id.toUpperCase(), quantity: 10_000 }] });
      expect(most.status).toBe(201);
      expect(most.body.order.items[0]).toMatchObject({ product_id: id, quantity: 10_000 });
      expect(await stock(id)).toBe(10_000);
    });

    it('accepts 100 items in one order', async () => {
      const ids = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          product(storeA, { name: `Bulk ${i}`, price: 0.01, inventory_quantity: 1 }),
        ),
      );
      const placed = await place('owner', storeA, { items: ids.map((product_id) => ({ product_id, quantity: 1 })) });
      expect(placed.status).toBe(201);
      expect(placed.body.order.total).toBe(1);
      expect(placed.body.order.items.map((i: { product_id: string }) => i.product_id)).toEqual(ids);
    });

    it('a total beyond what the store can hold answers 422, not a server error', async () => {
      const dear = await product(storeA, { name: 'Dear', price: 9_999_999_999.99, inventory_quantity: 1000 });
      const largest = await place('owner', storeA, { items: [{ product_id: dear, quantity: 100 }] });
      expect(largest.status).toBe(201);
      expect(largest.body.order.total).toBe(999_999_999_999);
      const tooMuch = await place('owner', storeA, { items: [{ product_id: dear, quantity: 101 }] });
      expect(tooMuch.status).toBe(422);
      expect(tooMuch.body.error).toMatchObject({
        code: 'UNPROCESSABLE',
        message: 'The order total exceeds 999999999999.99',
      });
      expect(await stock(dear)).toBe(900);
    });

    it(
      'only active products of the store can be ordered: ' + '422 naming each item, nothing reserved, no event',
      async () => {
        const good = await product(storeA, { name: 'Good', inventory_quantity: 4 });
        const draft = await product(storeA, { name: 'Draft', status: 'draft' });
        const archived = await product(storeA, { name: 'Archived', status: 'archived' });
        const foreign = await product(storeB, { name: 'Foreign' }, 'otherOwner');
        const unknown = '3f0e1d2c-4b5a-4697-8a8b-9c0d1e2f3a4b';
        const before = { events: (await events(storeA)).length, orders: await orderCount(storeA) };
        for (const who of ['owner', 'customer'] as const) {
          const refused = await place(who, storeA, {
            items: [good, draft, archived, foreign, unknown].map((product_id) => ({ product_id, quantity: 1 })),
          });
          expect(refused.status, who).toBe(422);
          expect(refused.body.error.code).toBe('UNPROCESSABLE');
          expect(refused.body.error.details).toEqual(
            [draft, archived, foreign, unknown].map((product_id, i) => ({
              field: `items.${i + 1}.product_id`,
              product_id,
              message: 'is not an active product of this store',
            })),
          );
        }
        expect(await stock(good)).toBe(4);
        expect(await stock(foreign)).toBe(100);
        expect((await events(storeA)).length).toBe(before.events);
        expect(await orderCount(storeA)).toBe(before.orders);
      },
    );

    it('reserves all or nothing: one short item reserves nothing and lists every short item', async () => {
      const alpha = await product(storeA, { name: 'Alpha' });
      const beta = await product(storeA, { name: 'Beta' });
      const [low, high] = [alpha, beta].sort();
      // `low` is taken first (ascending id order); it must be given back when `high` is short.
      await call('owner', 'POST', `/products/${low}/inventory`, { quantity: 5 });
      await call('owner', 'POST', `/products/${high}/inventory`, { quantity: 1 });
      const before = { events: (await events(storeA)).length, orders: await orderCount(storeA) };
      const short = await place('customer', storeA, {
        items: [
          { product_id: high, quantity: 2 },
          { product_id: low, quantity: 2 },
        ],
      });
      expect(short.status).toBe(409);
      expect(short.body.error).toEqual({
        code: 'OUT_OF_STOCK',
        message: `Only 1 of "${high === alpha ? 'Alpha' : 'Beta'}" in stock: cannot order 2`,
        details: [{ product_id: high, requested: 2, available: 1 }],
      });
      expect(await stock(low)).toBe(5);
      expect(await stock(high)).toBe(1);
      const both = await place('owner', storeA, {
        items: [
          { product_id: low, quantity: 6 },
          { product_id: high, quantity: 3 },
        ],
      });
      expect(both.status).toBe(409);
      expect(both.body.error.details).toEqual([
        { product_id: low, requested: 6, available: 5 },
        { product_id: high, requested: 3, available: 1 },
      ]);
      expect(await stock(low)).toBe(5);
      expect((await events(storeA)).length).toBe(before.events);
      expect(await orderCount(storeA)).toBe(before.orders);
    });

    it.each([
      ['owner', 201],
      ['ordersMember', 201],
      ['admin', 201],
      ['customer', 201],
      ['catalogMember', 403],
      ['otherOwner', 404],
      ['otherCustomer', 404],
    ] as const)('POST /stores/{id}/orders as %s → %i', async (who, status) => {
      const id = await product(storeA, { name: `For ${who}`, inventory_quantity: 1 });
      const result = await place(who, storeA, { items: [{ product_id: id, quantity: 1 }] });
      expect(result.status).toBe(status);
      expect(await stock(id)).toBe(status === 201 ? 0 : 1);
      if (status === 201) {
        expect(result.body.order.customer).toEqual(who === 'customer' ? customer : null);
      } else {
        expect(result.body.error.code).toBe(status === 403 ? 'FORBIDDEN' : 'NOT_FOUND');
      }
    });

    it('customer_id: staff name a customer of the store; a customer orders only for itself', async () => {
      const id = await product(storeA, { name: 'Gift' });
      const forCustomer2 = await place('ordersMember', storeA, {
        customer_id: customer2.id,
        items: [{ product_id: id, quantity: 1 }],
      });
      expect(forCustomer2.status).toBe(201);
      expect(forCustomer2.body.order.customer).toEqual(customer2);
      const foreign = await place('owner', storeA, {
        customer_id: otherStoreCustomerId,
        items: [{ product_id: id, quantity: 1 }],
      });
      expect(foreign.status).toBe(404);
      expect(foreign.body.error).toMatchObject({ code: 'NOT_FOUND', message: 'Customer not found' });
      const unknown = await place('owner', storeA, {
        customer_id: randomUUID(),
        items: [{ product_id: id, quantity: 1 }],
      });
      expect(unknown.status).toBe(404);
      const own = await place('customer', storeA, {
        customer_id: customer.id.toUpperCase(),
        items: [{ product_id: id, quantity: 1 }],
      });
      expect(own.status).toBe(201);
      expect(own.body.order.customer).toEqual(customer);
      for (const customerId of [customer2.id, otherStoreCustomerId, randomUUID()]) {
        const forSomeoneElse = await place('customer', storeA, {
          customer_id: customerId,
          items: [{ product_id: id, quantity: 1 }],
        });
        expect(forSomeoneElse.status).toBe(403);
        expect(forSomeoneElse.body.error.code).toBe('FORBIDDEN');
      }
      expect(await stock(id)).toBe(98);
    });

    it('answers a placed order as reading it back does: customer, items in order, prices, numbers', async () => {
      const [tote, mug, cap] = [
        await product(storeA, { name: 'Tote', price: 12.5 }),
        await product(storeA, { name: 'Mug', price: 0.1 }),
        await product(storeA, { name: 'Cap', price: 1234.05 }),
      ];
      const orders = [
        await place('owner', storeA, { items: [{ product_id: mug, quantity: 3 }] }),
        await place('ordersMember', storeA, {
          customer_id: customer2.id,
          items: [
            { product_id: cap, quantity: 2 },
            { product_id: tote, quantity: 1 },
            { product_id: mug, quantity: 7 },
          ],
        }),
        await place('customer', storeA, { items: [{ product_id: tote.toUpperCase(), quantity: 4 }] }),
      ];
      for (const placed of orders) {
        expect(placed.status).toBe(201);
        const read = await call('owner', 'GET', `/orders/${placed.body.order.id}`);
        expect(JSON.stringify(placed.body.order)).toBe(JSON.stringify(read.body.order));
      }
      expect(orders[1].body.order.items.map((item: { name: string }) => item.name)).toEqual(['Cap', 'Tote', 'Mug']);
      expect(orders[2].body.order.customer).toEqual(customer);
    });
  });

  describe('reading', () => {
    let mine: string;
    let theirs: string;
    let staffOrder: string;

    beforeAll(async () => {
      const id = await product(storeA, { name: 'Readable' });
      mine = (await place('customer', storeA, { items: [{ product_id: id, quantity: 1 }] })).body.order.id;
      theirs = (await place('customer2', storeA, { items: [{ product_id: id, quantity: 1 }] })).body.order.id;
      staffOrder = (await place('owner', storeA, { items: [{ product_id: id, quantity: 1 }] })).body.order.id;
    });

    it.each([
      ['owner', 200],
      ['ordersMember', 200],
      ['admin', 200],
      ['catalogMember', 403],
      ['customer', 403],
      ['otherOwner', 404],
      ['otherCustomer', 404],
    ] as const)('GET /stores/{id}/orders as %s → %i', async (who, status) => {
      const result = await call(who, 'GET', `/stores/${storeA}/orders?limit=100`);
      expect(result.status).toBe(status);
      if (status === 200) {
        expect(result.body.success).toBe(true);
        expect(result.body.data.map((o: { id: string }) => o.id)).toEqual(
          expect.arrayContaining([mine, theirs, staffOrder]),
        );
        expect(result.body.data.every((o: { store_id: string }) => o.store_id === storeA)).toBe(true);
      }
    });

    it.each([
      ['owner', 200],
      ['ordersMember', 200],
      ['admin', 200],
      ['customer', 200],
      ['catalogMember', 403],
      ['customer2', 404],
      ['otherOwner', 404],
      ['otherCustomer', 404],
    ] as const)('GET /orders/{id} of a customer’s order as %s → %i', async (who, status) => {
      const result = await call(who, 'GET', `/orders/${mine}`);
      expect(result.status).toBe(status);
      if (status === 200) expect(result.body.order).toMatchObject({ id: mine, customer: customer, status: 'pending' });
      if (status === 404) expect(result.body.error).toEqual({ code: 'NOT_FOUND', message: 'Order not found' });
    });

    it(
      'GET /orders/{id}: unknown id 404, malformed 400; ' + 'a customer cannot read an order without customer',
      async () => {
        expect((await call('owner', 'GET', `/orders/${randomUUID()}`)).status).toBe(404);
        expect((await call('owner', 'GET', '/orders/1001')).status).toBe(400);
        expect((await call('customer', 'GET', `/orders/${staffOrder}`)).status).toBe(404);
      },
    );

    it('GET /orders lists the calling customer’s own orders only, newest first, paged', async () => {
      const result = await call('customer', 'GET', '/orders?limit=100');
      expect(result.status).toBe(200);
      const ids = result.body.data.map((o: { id: string }) => o.id);
      expect(ids).toContain(mine);
      expect(ids).not.toContain(theirs);
      expect(ids).not.toContain(staffOrder);
      expect(result.body.data.every((o: { customer: { id: string } }) => o.customer.id === customer.id)).toBe(true);
      const created = result.body.data.map((o: { created_at: string }) => o.created_at);
      expect([...created].sort().reverse()).toEqual(created);
      const first = await call('customer', 'GET', '/orders?limit=1');
      expect(first.body.data).toHaveLength(1);
      expect(first.body.next_cursor).toEqual(expect.any(String));
      const second = await call('customer', 'GET', `/orders?limit=1&cursor=${first.body.next_cursor}`);
      expect(second.body.data[0].id).toBe(ids[1]);
      const theirsList = (await call('customer2', 'GET', '/orders')).body.data.map((o: { id: string }) => o.id);
      expect(theirsList).toContain(theirs);
      expect(theirsList).not.toContain(mine);
      expect((await call('otherCustomer', 'GET', '/orders')).body).toEqual({
        success: true,
        data: [],
        next_cursor: null,
      });
    });

    it.each(['owner', 'ordersMember', 'admin'] as const)(
      'GET /orders as %s → 403 pointing to the store route',
      async (who) => {
        const result = await call(who, 'GET', '/orders');
        expect(result.status).toBe(403);
        expect(result.body.error.code).toBe('FORBIDDEN');
        expect(result.body.error.message).toContain('/functions/v1/stores/{store_id}/orders');
      },
    );

    it('GET /stores/{id}/orders pages newest first and filters by status', async () => {
      const store = await merchantWithStore(api, 'Paging store');
      const own = await api.request('POST', `/functions/v1/stores/${store.storeId}/products`, {
        token: store.token,
        body: { name: 'Paged', price: 1, inventory_quantity: 10, status: 'active' },
      });
      expect(own.status).toBe(201);
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const placed = await api.request('POST', `/functions/v1/stores/${store.storeId}/orders`, {
          token: store.token,
          body: { items: [{ product_id: own.body.product.id, quantity: 1 }] },
        });
        ids.push(placed.body.order.id);
      }
      await api.request('PATCH', `/functions/v1/orders/${ids[1]}`, { token: store.token, body: { status: 'paid' } });
      const list = (query: string) =>
        api.request('GET', `/functions/v1/stores/${store.storeId}/orders${query}`, { token: store.token });
      const page1 = await list('?limit=2');
      expect(page1.body.data.map((o: { id: string }) => o.id)).toEqual([ids[4], ids[3]]);
      const page2 = await list(`?limit=2&cursor=${page1.body.next_cursor}`);
      expect(page2.body.data.map((o: { id: string }) => o.id)).toEqual([ids[2], ids[1]]);
      const page3 = await list(`?limit=2&cursor=${page2.body.next_cursor}`);
      expect(page3.body).toEqual({
        success: true,
        data: [expect.objectContaining({ id: ids[0], order_number: '1001' })],
        next_cursor: null,
      });
      expect((await list('?status=paid')).body.data.map((o: { id: string }) => o.id)).toEqual([ids[1]]);
      expect((await list('?status=pending')).body.data).toHaveLength(4);
      expect((await list('?status=lost')).status).toBe(400);
      expect((await list('?limit=0')).status).toBe(400);
      expect((await list('?cursor=garbage')).status).toBe(400);
    });
  });

  describe('status machine', () => {
    const TABLE: Record<string, string[]> = {
      pending: ['paid', 'cancelled'],
      paid: ['shipped', 'cancelled', 'refunded'],
      shipped: ['delivered', 'refunded'],
      delivered: ['refunded'],
      cancelled: [],
      refunded: [],
    };
    const PATH_TO: Record<string, string[]> = {
      pending: [],
      paid: ['paid'],
      shipped: ['paid', 'shipped'],
      delivered: ['paid', 'shipped', 'delivered'],
      cancelled: ['cancelled'],
      refunded: ['paid', 'refunded'],
    };
    let item: string;

    beforeAll(async () => {
      item = await product(storeA, { name: 'Machine part', price: 7.25, inventory_quantity: 1000 });
    });

    /** A new order for `customer`, moved along the shortest path to `status`. */
    const orderIn = async (status: string): Promise<string> => {
      const id = (
        await place('owner', storeA, { customer_id: customer.id, items: [{ product_id: item, quantity: 2 }] })
      ).body.order.id;
      for (const step of PATH_TO[status]) expect((await move('owner', id, step)).status).toBe(200);
      return id;
    };

    const legal = Object.entries(TABLE).flatMap(([from, targets]) => targets.map((to) => [from, to] as const));
    it('covers the 8 moves of the table', () => expect(legal).toHaveLength(8));

    it.each(legal)(
      '%s → %s is accepted and fires order.updated and the specific event with the order after the change',
      async (from, to) => {
        const id = await orderIn(from);
        const stockBefore = await stock(item);
        const before = (await events(storeA)).length;
        const moved = await move('ordersMember', id, to);
        expect(moved.status).toBe(200);
        expect(moved.body.order).toMatchObject({ id, status: to, total: 14.5 });
        expect(new Date(moved.body.order.updated_at).getTime()).toBeGreaterThanOrEqual(
          new Date(moved.body.order.created_at).getTime(),
        );
        const number = moved.body.order.order_number;
        const data = {
          order_id: id,
          order_number: number,
          total: 14.5,
          currency: 'EUR',
          status: to,
          customer: { name: customer.name, email: customer.email },
          items: [{ product_id: item, name: 'Machine part', quantity: 2, price: 7.25 }],
        };
        const expected: { event: string; data: Record<string, unknown> }[] = [
          { event: 'order.updated', data },
          { event: `order.${to}`, data },
        ];
        if (to === 'cancelled') {
          expected.push({
            event: 'inventory.updated',
            data: {
              product_id: item,
              previous_quantity: stockBefore,
              quantity: stockBefore + 2,
              delta: 2,
              reason: `order ${number} cancelled`,
            },
          });
        }
        expect((await events(storeA)).slice(before)).toEqual(expected);
        expect(await stock(item)).toBe(to === 'cancelled' ? stockBefore + 2 : stockBefore);
        expect((await call('owner', 'GET', `/orders/${id}`)).body.order.status).toBe(to);
      },
    );

    it.each(Object.keys(TABLE))(
      'from %s every other move (itself included) answers 409 INVALID_TRANSITION and changes nothing',
      async (from) => {
        const id = await orderIn(from);
        const before = (await events(storeA)).length;
        const stockBefore = await stock(item);
        const illegal = Object.keys(TABLE).filter((to) => !TABLE[from].includes(to));
        expect(illegal).toContain(from);
        for (const to of illegal) {
          const refused = await move('owner', id, to);
          expect(refused.status, `${from} → ${to}`).toBe(409);
          expect(refused.body).toMatchObject({
            success: false,
            error: { code: 'INVALID_TRANSITION', details: { from, to, allowed: TABLE[from] } },
          });
        }
        expect((await call('owner', 'GET', `/orders/${id}`)).body.order.status).toBe(from);
        expect((await events(storeA)).length).toBe(before);
        expect(await stock(item)).toBe(stockBefore);
      },
    );

    it('validates the status and refuses other fields', async () => {
      const id = await orderIn('pending');
      expect(fields(await move('owner', id, 'lost'))).toEqual(['status']);
      expect(fields(await call('owner', 'PATCH', `/orders/${id}`, {}))).toEqual(['status']);
      expect(fields(await call('owner', 'PATCH', `/orders/${id}`, { status: 'paid', total: 0 }))).toEqual(['total']);
      expect((await call('owner', 'GET', `/orders/${id}`)).body.order).toMatchObject({
        status: 'pending',
        total: 14.5,
      });
    });

    it.each([
      ['catalogMember', 403],
      ['otherOwner', 404],
      ['otherCustomer', 404],
      ['customer2', 404],
      ['admin', 200],
    ] as const)('PATCH /orders/{id} as %s → %i', async (who, status) => {
      const id = await orderIn('pending');
      expect((await move(who, id, 'paid')).status).toBe(status);
      expect((await call('owner', 'GET', `/orders/${id}`)).body.order.status).toBe(status === 200 ? 'paid' : 'pending');
    });

    it('a customer cancels its own pending order (restocked), and may do nothing else', async () => {
      const pending = await orderIn('pending');
      expect((await move('customer', pending, 'paid')).status).toBe(403);
      const stockBefore = await stock(item);
      const cancelled = await move('customer', pending, 'cancelled');
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.order.status).toBe('cancelled');
      expect(await stock(item)).toBe(stockBefore + 2);
      expect((await move('customer', pending, 'cancelled')).status).toBe(403);

      const paid = await orderIn('paid');
      const before = (await events(storeA)).length;
      const refused = await move('customer', paid, 'cancelled');
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('FORBIDDEN');
      expect((await call('owner', 'GET', `/orders/${paid}`)).body.order.status).toBe('paid');
      expect((await events(storeA)).length).toBe(before);
    });

    it(
      'cancelling restocks every item, skips deleted products, ' + 'restocks inactive ones; a refund does not restock',
      async () => {
        const kept = await product(storeA, { name: 'Kept', inventory_quantity: 10 });
        const archived = await product(storeA, { name: 'Later archived', inventory_quantity: 10 });
        const deleted = await product(storeA, { name: 'Later deleted', inventory_quantity: 10 });
        const placed = await place('owner', storeA, {
          items: [
            { product_id: kept, quantity: 3 },
            { product_id: archived, quantity: 2 },
            { product_id: deleted, quantity: 1 },
          ],
        });
        const id = placed.body.order.id;
        await call('owner', 'PATCH', `/products/${archived}`, { status: 'archived' });
        await call('owner', 'DELETE', `/products/${deleted}`);
        expect((await move('owner', id, 'paid')).status).toBe(200);
        const before = (await events(storeA)).length;
        const cancelled = await move('owner', id, 'cancelled');
        expect(cancelled.status).toBe(200);
        expect(cancelled.body.order.items).toEqual([
          { product_id: kept, name: 'Kept', quantity: 3, price: 10 },
          { product_id: archived, name: 'Later archived', quantity: 2, price: 10 },
          { product_id: null, name: 'Later deleted', quantity: 1, price: 10 },
        ]);
        expect(await stock(kept)).toBe(10);
        expect(await stock(archived)).toBe(10);
        const reason = `order ${placed.body.order.order_number} cancelled`;
        const restocks = (await events(storeA)).slice(before).filter((e) => e.event === 'inventory.updated');
        expect(restocks.map((e) => e.data).sort((a, b) => (a.product_id < b.product_id ? -1 : 1))).toEqual(
          [
            { product_id: kept, previous_quantity: 7, quantity: 10, delta: 3, reason },
            { product_id: archived, previous_quantity: 8, quantity: 10, delta: 2, reason },
          ].sort((a, b) => (a.product_id < b.product_id ? -1 : 1)),
        );

        const refundedOrder = await place('owner', storeA, { items: [{ product_id: kept, quantity: 4 }] });
        await move('owner', refundedOrder.body.order.id, 'paid');
        const refundEvents = (await events(storeA)).length;
        expect((await move('owner', refundedOrder.body.order.id, 'refunded')).status).toBe(200);
        expect(await stock(kept)).toBe(6);
        expect((await events(storeA)).slice(refundEvents).map((e) => e.event)).toEqual([
          'order.updated',
          'order.refunded',
        ]);
      },
    );

    it('concurrent moves of one order serialise: of 10 simultaneous pending → paid, exactly one wins', async () => {
      const id = await orderIn('pending');
      const before = (await events(storeA)).length;
      const results = await Promise.all(Array.from({ length: 10 }, () => move('owner', id, 'paid')));
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      expect(results.filter((r) => r.status === 409 && r.body.error.code === 'INVALID_TRANSITION')).toHaveLength(9);
      expect((await events(storeA)).slice(before).map((e) => e.event)).toEqual(['order.updated', 'order.paid']);
    });

    it('concurrent cancels restock once', async () => {
      const id = await orderIn('pending');
      const stockBefore = await stock(item);
      const results = await Promise.all([
        ...Array.from({ length: 5 }, () => move('owner', id, 'cancelled')),
        ...Array.from({ length: 5 }, () => move('customer', id, 'cancelled')),
      ]);
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      expect(await stock(item)).toBe(stockBefore + 2);
    });
  });

  describe('concurrency and order numbers', () => {
    it(
      '20 concurrent orders for the last unit: exactly ' + 'one wins, stock 0, no event or number for the others',
      async () => {
        const store = await merchantWithStore(api, 'Last unit store');
        const shoppers = await Promise.all(
          Array.from(
            { length: 5 },
            async () => (await signUp(api, { role: 'customer', store_id: store.storeId })).access_token,
          ),
        );
        const last = await api.request('POST', `/functions/v1/stores/${store.storeId}/products`, {
          token: store.token,
          body: { name: 'Last one', price: 99.99, inventory_quantity: 1, status: 'active' },
        });
        const id = last.body.product.id;
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            api.request('POST', `/functions/v1/stores/${store.storeId}/orders`, {
              token: i % 4 === 0 ? store.token : shoppers[i % 5],
              body: { items: [{ product_id: id, quantity: 1 }] },
            }),
          ),
        );
        const won = results.filter((r) => r.status === 201);
        expect(won).toHaveLength(1);
        expect(won[0].body.order.order_number).toBe('1001');
        const lost = results.filter((r) => r.status === 409);
        expect(lost).toHaveLength(19);
        for (const r of lost) {
          expect(r.body.error).toMatchObject({
            code: 'OUT_OF_STOCK',
            details: [{ product_id: id, requested: 1, available: 0 }],
          });
        }
        expect(await stock(id)).toBe(0);
        const fired = (await events(store.storeId)).filter((e) => /^(order|inventory)\./.test(e.event));
        expect(fired.map((e) => e.event)).toEqual(['order.created', 'inventory.updated']);
        expect(fired[1].data).toEqual({
          product_id: id,
          previous_quantity: 1,
          quantity: 0,
          delta: -1,
          reason: 'order 1001',
        });
        expect(await orderCount(store.storeId)).toBe(1);

        await api.request('POST', `/functions/v1/products/${id}/inventory`, { token: store.token, body: { delta: 1 } });
        const next = await api.request('POST', `/functions/v1/stores/${store.storeId}/orders`, {
          token: shoppers[0],
          body: { items: [{ product_id: id, quantity: 1 }] },
        });
        expect(next.body.order.order_number).toBe('1002');
      },
    );

    it('30 concurrent orders take exactly 1001..1030; failed orders in between take no number', async () => {
      const store = await merchantWithStore(api, 'Numbering store');
      const shopper = (await signUp(api, { role: 'customer', store_id: store.storeId })).access_token;
      const create = async (body: Record<string, unknown>) =>
        (
          await api.request('POST', `/functions/v1/stores/${store.storeId}/products`, {
            token: store.token,
            body: { price: 3, status: 'active', ...body },
          })
        ).body.product.id as string;
      const plenty = await create({ name: 'Plenty', inventory_quantity: 1000 });
      const none = await create({ name: 'None', inventory_quantity: 0 });
      const order = (token: string, productId: string) =>
        api.request('POST', `/functions/v1/stores/${store.storeId}/orders`, {
          token,
          body: { items: [{ product_id: productId, quantity: 1 }] },
        });
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => order(i % 2 ? shopper : store.token, i % 4 === 3 ? none : plenty)),
      );
      const placed = results.filter((r) => r.status === 201);
      expect(placed).toHaveLength(30);
      expect(results.filter((r) => r.status === 409)).toHaveLength(10);
      const numbers = placed.map((r) => Number(r.body.order.order_number)).sort((a, b) => a - b);
      expect(numbers).toEqual(Array.from({ length: 30 }, (_, i) => 1001 + i));
      expect(await stock(plenty)).toBe(970);
      const created = (await events(store.storeId)).filter((e) => e.event === 'order.created');
      expect(created.map((e) => Number(e.data.order_number)).sort((a, b) => a - b)).toEqual(numbers);
      expect((await order(store.token, none)).status).toBe(409);
      expect((await order(shopper, plenty)).body.order.order_number).toBe('1031');
    });

    it('concurrent orders over several products in opposite item orders neither deadlock nor oversell', async () => {
      const store = await merchantWithStore(api, 'Deadlock store');
      const ids: string[] = [];
      for (const name of ['A', 'B', 'C']) {
        const made = await api.request('POST', `/functions/v1/stores/${store.storeId}/products`, {
          token: store.token,
          body: { name, price: 1, inventory_quantity: 10, status: 'active' },
        });
        ids.push(made.body.product.id);
      }
      const results = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          api.request('POST', `/functions/v1/stores/${store.storeId}/orders`, {
            token: store.token,
            body: { items: (i % 2 ? [...ids].reverse() : ids).map((product_id) => ({ product_id, quantity: 1 })) },
          }),
        ),
      );
      expect(results.filter((r) => r.status === 201)).toHaveLength(10);
      expect(results.filter((r) => r.status === 409)).toHaveLength(6);
      for (const id of ids) expect(await stock(id)).toBe(0);
    });
  });
});
