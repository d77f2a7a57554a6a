import type { DataSource } from 'typeorm';
import { merchantWithStore, signUp, startApp, uniqueEmail, type TestApp } from './support/app.js';
import { asRequest, SYSTEM_DATA_SOURCE } from './support/database.js';

type Tenant = Awaited<ReturnType<typeof merchantWithStore>>;

/**
 * Two holes a request's own SQL once reached, in transactions opened exactly as a request's (request
 * login, bound to the session): items added to an order after it was placed (its total and stock are
 * checked only in the transaction that places it), and a membership made active without an invitation
 * accepted.
 */
describe('row-level security: placed orders and memberships', () => {
  let api: TestApp;
  let system: DataSource;
  let owner: Tenant;
  let productId: string;
  let customerToken: string;

  const stock = async () =>
    (await system.query('SELECT inventory_quantity FROM products WHERE id = $1', [productId]))[0].inventory_quantity;
  const orderState = async (orderId: string) =>
    (
      await system.query(
        `SELECT o.total::text, (SELECT count(*)::int FROM order_items i ` +
          `WHERE i.order_id = o.id) AS items FROM orders o WHERE o.id = $1`,
        [orderId],
      )
    )[0];
  const place = async (token: string) => {
    const placed = await api.request('POST', `/functions/v1/stores/${owner.storeId}/orders`, {
      token,
      body: { items: [{ product_id: productId, quantity: 1 }] },
    });
    expect(placed.status).toBe(201);
    return placed.body.order.id as string;
  };
  const addItems = (token: string, orderId: string) =>
    asRequest(api, token, (q) =>
      q(
        `INSERT INTO order_items (order_id, store_id, product_id, position, ` +
          `name, quantity, price) VALUES ($1, $2, $3, 2, 'more', 100, 0)`,
        [orderId, owner.storeId, productId],
      ),
    );

  beforeAll(async () => {
    api = await startApp();
    system = api.app.get<DataSource>(SYSTEM_DATA_SOURCE);
    owner = await merchantWithStore(api, 'Placed orders');
    const created = await api.request('POST', `/functions/v1/stores/${owner.storeId}/products`, {
      token: owner.token,
      body: { name: 'Lamp', price: 10, inventory_quantity: 500, status: 'active' },
    });
    productId = created.body.product.id;
    customerToken = (await signUp(api, { role: 'customer', store_id: owner.storeId })).access_token;
  });
  afterAll(() => api.close());

  it(
    "refuses a customer's items added to its own pending order " +
      'after it was placed; cancelling returns only what was taken',
    async () => {
      const before = await stock();
      const orderId = await place(customerToken);
      expect(await stock()).toBe(before - 1);

      await expect(addItems(customerToken, orderId)).rejects.toThrow(
        /row-level security policy for table "order_items"/,
      );
      expect(await orderState(orderId)).toEqual({ total: '10.00', items: 1 });
      expect(await stock()).toBe(before - 1);

      const cancelled = await api.request('PATCH', `/functions/v1/orders/${orderId}`, {
        token: customerToken,
        body: { status: 'cancelled' },
      });
      expect(cancelled.status).toBe(200);
      expect(await stock()).toBe(before);
    },
  );

  it("refuses the store's staff items added to a placed order too", async () => {
    const orderId = await place(owner.token);
    await expect(addItems(owner.token, orderId)).rejects.toThrow(/row-level security policy for table "order_items"/);
    expect(await orderState(orderId)).toEqual({ total: '10.00', items: 1 });
  });

  it('refuses an owner an active membership for another user, with no invitation and no consent', async () => {
    const victim = await signUp(api);
    const forged = asRequest(api, owner.token, (q) =>
      q(
        `INSERT INTO store_members (store_id, email, user_id, permissions, status, accepted_at)
         VALUES ($1, $2, $3, '{orders}', 'active', now())`,
        [owner.storeId, victim.user.email, victim.user.id],
      ),
    );
    await expect(forged).rejects.toThrow(/permission denied for table store_members/);
    // Naming only an invitation's columns makes an invitation, never a member.
    const [invited] = await asRequest(api, owner.token, (q) =>
      q(
        `INSERT INTO store_members (store_id, email, permissions) ` +
          `VALUES ($1, $2, '{orders}') RETURNING status, user_id`,
        [owner.storeId, uniqueEmail('invited')],
      ),
    );
    expect(invited).toEqual({ status: 'invited', user_id: null });
    expect(await system.query('SELECT 1 FROM store_members WHERE user_id = $1', [victim.user.id])).toEqual([]);
    const stores = await asRequest(api, victim.access_token, (q) =>
      q('SELECT id FROM stores WHERE id = $1', [owner.storeId]),
    );
    expect(stores).toEqual([]);
  });
});
