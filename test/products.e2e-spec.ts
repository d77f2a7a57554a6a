import { DataSource } from 'typeorm';
import { merchantWithStore, signUp, startApp, uniqueEmail, type TestApp } from './support/app.js';
import { SYSTEM_DATA_SOURCE } from './support/database.js';

/** The catalog and inventory: roles, validation, filters, events, concurrency. */
describe('products and inventory', () => {
  let api: TestApp;
  let owner: { token: string; storeId: string };
  let other: { token: string; storeId: string };
  let catalogMember: string;
  let ordersMember: string;
  let customer: string;

  const events = async (storeId: string) =>
    (await api.app
      .get<DataSource>(SYSTEM_DATA_SOURCE)
      .query('SELECT event, data FROM outbox_events WHERE store_id = $1 ORDER BY created_at, id', [storeId])) as {
      event: string;
      data: Record<string, unknown>;
    }[];
  const create = (token: string, storeId: string, body: Record<string, unknown>) =>
    api.request('POST', `/functions/v1/stores/${storeId}/products`, { token, body });
  const member = async (permissions: string[], store: { token: string; storeId: string } = owner) => {
    const email = uniqueEmail('member');
    const invite = await api.request('POST', `/functions/v1/stores/${store.storeId}/members`, {
      token: store.token,
      body: { email, permissions },
    });
    return (await signUp(api, { invite_token: invite.body.invite_token }, email)).access_token;
  };

  beforeAll(async () => {
    api = await startApp();
    owner = await merchantWithStore(api, 'Catalog store');
    other = await merchantWithStore(api, 'Other store');
    catalogMember = await member(['catalog']);
    ordersMember = await member(['orders']);
    customer = (await signUp(api, { role: 'customer', store_id: owner.storeId })).access_token;
  });
  afterAll(() => api.close());

  it('creates a product with server-side defaults and fires product.created with the documented data', async () => {
    const created = await create(owner.token, owner.storeId, {
      name: ' Mug ',
      price: 12.5,
      compare_price: 15,
      category: 'Kitchen',
      seo_keywords: ['mug', 'cup', 'coffee'],
    });
    expect(created.status).toBe(201);
    expect(created.body.product).toMatchObject({
      name: 'Mug',
      price: 12.5,
      compare_price: 15,
      status: 'draft',
      inventory_quantity: 0,
      store_id: owner.storeId,
    });
    const fired = (await events(owner.storeId)).filter(
      (e) => e.event === 'product.created' && e.data.product_id === created.body.product.id,
    );
    expect(fired).toEqual([
      {
        event: 'product.created',
        data: {
          product_id: created.body.product.id,
          name: 'Mug',
          price: 12.5,
          compare_price: 15,
          category: 'Kitchen',
          status: 'draft',
          inventory_quantity: 0,
        },
      },
    ]);
  });

  it('validates money, compare_price and unknown fields, and emits nothing for a refused change', async () => {
    const before = (await events(owner.storeId)).length;
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'x', price: 1.005 }, 'price'],
      [{ name: 'x', price: -1 }, 'price'],
      // Exponent forms: a number's text with no decimal point must not get past the 2-decimal rule.
      [{ name: 'x', price: 1e-7 }, 'price'],
      [{ name: 'x', price: -1e-323 }, 'price'],
      [{ name: 'x', price: 10, compare_price: 1e21 }, 'compare_price'],
      [{ name: 'x', price: 10, compare_price: 9.99 }, 'compare_price'],
      [{ name: 'x', price: 10, status: 'sold' }, 'status'],
      [{ name: 'x', price: 10, inventory_quantity: -1 }, 'inventory_quantity'],
      [{ name: 'x', price: '10' }, 'price'],
      [{ name: 'x', price: 10, store_id: other.storeId }, 'store_id'],
    ];
    for (const [body, field] of cases) {
      const result = await create(owner.token, owner.storeId, body);
      expect(result.status, JSON.stringify(body)).toBe(400);
      expect(result.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect((await events(owner.storeId)).length).toBe(before);
  });

  it.each([
    ['owner', 201],
    ['catalog member', 201],
    ['orders member', 403],
    ['customer', 403],
    ['other owner', 404],
  ] as const)('POST products as %s → %i', async (who, status) => {
    const token = {
      owner: owner.token,
      'catalog member': catalogMember,
      'orders member': ordersMember,
      customer,
      'other owner': other.token,
    }[who];
    expect((await create(token, owner.storeId, { name: `By ${who}`, price: 1 })).status).toBe(status);
  });

  it('PATCH, DELETE and inventory are for staff with catalog; other tenants get 404', async () => {
    const id = (await create(owner.token, owner.storeId, { name: 'Guarded', price: 5, status: 'active' })).body.product
      .id;
    expect(
      (await api.request('PATCH', `/functions/v1/products/${id}`, { token: ordersMember, body: { name: 'x' } })).status,
    ).toBe(403);
    expect(
      (await api.request('PATCH', `/functions/v1/products/${id}`, { token: customer, body: { name: 'x' } })).status,
    ).toBe(403);
    expect(
      (await api.request('PATCH', `/functions/v1/products/${id}`, { token: other.token, body: { name: 'x' } })).body
        .error,
    ).toMatchObject({
      code: 'NOT_FOUND',
      message: 'Product not found',
    });
    expect(
      (await api.request('POST', `/functions/v1/products/${id}/inventory`, { token: other.token, body: { delta: 1 } }))
        .status,
    ).toBe(404);
    expect((await api.request('DELETE', `/functions/v1/products/${id}`, { token: other.token })).status).toBe(404);
    expect((await api.request('GET', `/functions/v1/products/${id}`, { token: other.token })).status).toBe(404);
    expect(
      (await api.request('GET', `/functions/v1/products/3f0e1d2c-4b5a-4697-8a8b-9c0d1e2f3a4b`, { token: owner.token }))
        .status,
    ).toBe(404);
    const renamed = await api.request('PATCH', `/functions/v1/products/${id}`, {
      token: catalogMember,
      body: { name: 'Renamed', price: 6 },
    });
    expect(renamed.body.product).toMatchObject({ name: 'Renamed', price: 6 });
  });

  it('PATCH keeps compare_price at or above the price, fires product.updated with the new data', async () => {
    const id = (await create(owner.token, owner.storeId, { name: 'Lamp', price: 20, compare_price: 25 })).body.product
      .id;
    expect(
      (await api.request('PATCH', `/functions/v1/products/${id}`, { token: owner.token, body: { price: 30 } })).status,
    ).toBe(400);
    expect(
      (
        await api.request('PATCH', `/functions/v1/products/${id}`, {
          token: owner.token,
          body: { inventory_quantity: 5 },
        })
      ).status,
    ).toBe(400);
    const ok = await api.request('PATCH', `/functions/v1/products/${id}`, {
      token: owner.token,
      body: { price: 22, compare_price: null, status: 'active' },
    });
    expect(ok.status).toBe(200);
    const updated = (await events(owner.storeId)).filter(
      (e) => e.event === 'product.updated' && e.data.product_id === id,
    );
    expect(updated).toHaveLength(1);
    expect(updated[0].data).toMatchObject({ price: 22, compare_price: null, status: 'active' });
  });

  it('DELETE removes the product and fires product.deleted once', async () => {
    const id = (await create(owner.token, owner.storeId, { name: 'Gone', price: 3 })).body.product.id;
    expect((await api.request('DELETE', `/functions/v1/products/${id}`, { token: owner.token })).body).toEqual({
      success: true,
      message: 'Product deleted',
    });
    expect((await api.request('GET', `/functions/v1/products/${id}`, { token: owner.token })).status).toBe(404);
    expect((await api.request('DELETE', `/functions/v1/products/${id}`, { token: owner.token })).status).toBe(404);
    expect(
      (await events(owner.storeId)).filter((e) => e.event === 'product.deleted' && e.data.product_id === id),
    ).toHaveLength(1);
  });

  it('lists with filters and pages; customers see active products only', async () => {
    const store = await merchantWithStore(api, 'Filter store');
    for (const [name, status, category] of [
      ['Red tote', 'active', 'Bags'],
      ['Blue tote', 'draft', 'Bags'],
      ['Green mug', 'active', 'Kitchen'],
      ['100% cotton', 'archived', 'Bags'],
    ]) {
      await create(store.token, store.storeId, { name, status, category, price: 1 });
    }
    const names = async (query: string, token = store.token) =>
      (await api.request('GET', `/functions/v1/stores/${store.storeId}/products${query}`, { token })).body.data.map(
        (p: { name: string }) => p.name,
      );
    expect(await names('?status=active')).toEqual(['Green mug', 'Red tote']);
    expect(await names('?category=Bags')).toEqual(['100% cotton', 'Blue tote', 'Red tote']);
    expect(await names('?q=TOTE')).toEqual(['Blue tote', 'Red tote']);
    expect(await names('?q=%25')).toEqual(['100% cotton']);
    const page = await api.request('GET', `/functions/v1/stores/${store.storeId}/products?limit=3`, {
      token: store.token,
    });
    expect(page.body.data).toHaveLength(3);
    const rest = await api.request(
      'GET',
      `/functions/v1/stores/${store.storeId}/products?limit=3&cursor=${page.body.next_cursor}`,
      {
        token: store.token,
      },
    );
    expect(rest.body.data.map((p: { name: string }) => p.name)).toEqual(['Red tote']);
    expect(rest.body.next_cursor).toBeNull();
    const shopper = (await signUp(api, { role: 'customer', store_id: store.storeId })).access_token;
    expect(await names('', shopper)).toEqual(['Green mug', 'Red tote']);
    const draft = (
      await api.request('GET', `/functions/v1/stores/${store.storeId}/products?status=draft`, { token: store.token })
    ).body.data[0].id;
    expect((await api.request('GET', `/functions/v1/products/${draft}`, { token: shopper })).status).toBe(404);
    expect(
      (await api.request('GET', `/functions/v1/stores/${store.storeId}/products?status=gone`, { token: store.token }))
        .status,
    ).toBe(400);
  });

  it('members without catalog see active products only: drafts and archived ones are not found', async () => {
    const store = await merchantWithStore(api, 'Draft store');
    const made: Record<string, string> = {};
    for (const [name, status] of [
      ['Live lamp', 'active'],
      ['Secret lamp', 'draft'],
      ['Old lamp', 'archived'],
    ]) {
      made[status] = (await create(store.token, store.storeId, { name, status, price: 9 })).body.product.id;
    }
    const orders = await member(['orders', 'customers', 'ai'], store);
    const catalog = await member(['catalog'], store);
    const list = async (token: string, query = '') => {
      const result = await api.request('GET', `/functions/v1/stores/${store.storeId}/products${query}`, { token });
      expect(result.status).toBe(200);
      return result.body.data.map((p: { name: string }) => p.name);
    };
    const get = (token: string, status: string) =>
      api.request('GET', `/functions/v1/products/${made[status]}`, { token });

    expect(await list(orders)).toEqual(['Live lamp']);
    expect(await list(orders, '?status=draft')).toEqual([]);
    expect(await list(orders, '?status=archived')).toEqual([]);
    expect(await list(orders, '?q=lamp')).toEqual(['Live lamp']);
    expect((await get(orders, 'active')).body.product).toMatchObject({ id: made.active, status: 'active' });
    for (const status of ['draft', 'archived']) {
      const hidden = await get(orders, status);
      expect(hidden.status, status).toBe(404);
      // The same answer as for a product that does not exist: nothing says it is there.
      expect(hidden.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: 'Product not found' } });
    }
    // Writes were the catalog permission's already; a draft stays unchanged.
    expect(
      (
        await api.request('PATCH', `/functions/v1/products/${made.draft}`, {
          token: orders,
          body: { status: 'active' },
        })
      ).status,
    ).toBe(403);

    const everything = ['Old lamp', 'Secret lamp', 'Live lamp'];
    expect(await list(catalog)).toEqual(everything);
    expect(await list(store.token)).toEqual(everything);
    expect(await list(catalog, '?status=draft')).toEqual(['Secret lamp']);
    for (const status of ['active', 'draft', 'archived']) {
      expect((await get(catalog, status)).body.product, status).toMatchObject({ id: made[status], status });
      expect((await get(store.token, status)).status, status).toBe(200);
    }
  });

  describe('inventory', () => {
    it('adjusts by delta or to a quantity, never below zero, with inventory.updated data', async () => {
      const id = (await create(owner.token, owner.storeId, { name: 'Stocked', price: 2, inventory_quantity: 5 })).body
        .product.id;
      const plus = await api.request('POST', `/functions/v1/products/${id}/inventory`, {
        token: catalogMember,
        body: { delta: 3, reason: 'delivery' },
      });
      expect(plus.body.product.inventory_quantity).toBe(8);
      const set = await api.request('POST', `/functions/v1/products/${id}/inventory`, {
        token: owner.token,
        body: { quantity: 2 },
      });
      expect(set.body.product.inventory_quantity).toBe(2);
      const short = await api.request('POST', `/functions/v1/products/${id}/inventory`, {
        token: owner.token,
        body: { delta: -3 },
      });
      expect(short.status).toBe(409);
      expect(short.body.error).toMatchObject({ code: 'OUT_OF_STOCK', details: { available: 2, requested_delta: -3 } });
      expect(
        (
          await api.request('POST', `/functions/v1/products/${id}/inventory`, {
            token: owner.token,
            body: { quantity: -1 },
          })
        ).status,
      ).toBe(400);
      expect(
        (
          await api.request('POST', `/functions/v1/products/${id}/inventory`, {
            token: owner.token,
            body: { delta: 1, quantity: 1 },
          })
        ).status,
      ).toBe(400);
      expect(
        (await api.request('POST', `/functions/v1/products/${id}/inventory`, { token: owner.token, body: {} })).status,
      ).toBe(400);
      expect(
        (
          await api.request('POST', `/functions/v1/products/${id}/inventory`, {
            token: owner.token,
            body: { delta: 1.5 },
          })
        ).status,
      ).toBe(400);
      // Stock is capped at 1,000,000,000: a move past it is a 409, never an overflow (500).
      const huge = await api.request('POST', `/functions/v1/products/${id}/inventory`, {
        token: owner.token,
        body: { delta: 1_000_000_000 },
      });
      expect(huge.status).toBe(409);
      expect(huge.body.error.code).toBe('CONFLICT');
      const moves = (await events(owner.storeId))
        .filter((e) => e.event === 'inventory.updated' && e.data.product_id === id)
        .map((e) => e.data);
      expect(moves).toEqual([
        { product_id: id, previous_quantity: 5, quantity: 8, delta: 3, reason: 'delivery' },
        { product_id: id, previous_quantity: 8, quantity: 2, delta: -6, reason: null },
      ]);
    });

    it('stays exact under concurrent adjustments: 25 removals of 1 from 10 → 10 succeed, stock 0', async () => {
      const id = (await create(owner.token, owner.storeId, { name: 'Hot item', price: 2, inventory_quantity: 10 })).body
        .product.id;
      const results = await Promise.all(
        Array.from({ length: 25 }, () =>
          api.request('POST', `/functions/v1/products/${id}/inventory`, { token: owner.token, body: { delta: -1 } }),
        ),
      );
      expect(results.filter((r) => r.status === 200)).toHaveLength(10);
      expect(results.filter((r) => r.status === 409)).toHaveLength(15);
      expect(
        (await api.request('GET', `/functions/v1/products/${id}`, { token: owner.token })).body.product
          .inventory_quantity,
      ).toBe(0);
      const moves = (await events(owner.storeId)).filter(
        (e) => e.event === 'inventory.updated' && e.data.product_id === id,
      );
      expect(moves).toHaveLength(10);
      expect(moves.map((e) => e.data.quantity).sort((a, b) => Number(a) - Number(b))).toEqual([
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
      ]);
    });
  });
});
