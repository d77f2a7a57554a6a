import { createHash, createHmac } from 'node:crypto';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { databaseConfig } from '@app/core';
import { merchantWithStore, startApp, type TestApp } from './support/app.js';
import { asRequest, SYSTEM_DATA_SOURCE, type Query } from './support/database.js';

const ROLLED_BACK = new Error('rolled back on purpose');

/**
 * Store keys against row-level security alone: statements with no tenant filter, in transactions of
 * the request login bound to a key exactly as a key's request is (`app_authorize_api_key`), with no
 * guard in the way. The database must give a key its own store and its permissions, and nothing else.
 */
describe('store keys: row-level security', () => {
  let api: TestApp;
  let a: { token: string; storeId: string };
  let b: { token: string; storeId: string };
  const keys: Record<'catalog' | 'orders' | 'revoked', { id: string; secret: string }> = {} as never;
  const system = () => api.app.get<DataSource>(SYSTEM_DATA_SOURCE);

  /** Runs `work` bound to the key whose secret is `secret`, as its request would be; rolls back when asked. */
  const asKey = async <T>(secret: string, work: (query: Query) => Promise<T>, rollback = false): Promise<T> => {
    let result: T;
    const hash = createHash('sha256').update(secret).digest('hex');
    try {
      await api.app.get<DataSource>(getDataSourceToken()).transaction(async (manager) => {
        const bound = await manager.query(
          'SELECT key_id FROM app_authorize_api_key($1, NULL, NULL, NULL, false, true)',
          [hash],
        );
        if (bound.length !== 1) throw new Error('the key could not be bound');
        result = await work((sql, params) => manager.query(sql, params));
        if (rollback) throw ROLLED_BACK;
      });
    } catch (error) {
      if (error !== ROLLED_BACK) throw error;
    }
    return result!;
  };
  const ids = (rows: { store_id: string }[]) => [...new Set(rows.map((row) => row.store_id))];
  const make = async (permissions: string[]) => {
    const made = await api.request('POST', `/functions/v1/stores/${a.storeId}/api-keys`, {
      token: a.token,
      body: { name: 'RLS', permissions },
    });
    return { id: made.body.api_key.id as string, secret: made.body.secret as string };
  };

  beforeAll(async () => {
    api = await startApp();
    a = await merchantWithStore(api, 'RLS key store A');
    b = await merchantWithStore(api, 'RLS key store B');
    for (const owner of [a, b]) {
      const call = (method: string, path: string, body: unknown) =>
        api.request(method, `/functions/v1${path}`, { token: owner.token, body });
      const product = await call('POST', `/stores/${owner.storeId}/products`, {
        name: 'Mug',
        price: 4,
        inventory_quantity: 9,
        status: 'active',
      });
      await call('POST', `/stores/${owner.storeId}/products`, { name: 'Draft', price: 4 });
      const customer = await call('POST', `/stores/${owner.storeId}/customers`, {
        name: 'Cy',
        email: `cy-${owner.storeId}@example.com`,
      });
      await call('POST', `/stores/${owner.storeId}/orders`, {
        customer_id: customer.body.customer.id,
        items: [{ product_id: product.body.product.id, quantity: 1 }],
      });
    }
    keys.catalog = await make(['catalog']);
    keys.orders = await make(['orders']);
    keys.revoked = await make(['catalog', 'orders']);
    await api.request('DELETE', `/functions/v1/api-keys/${keys.revoked.id}`, { token: a.token });
  });
  afterAll(() => api?.close());

  it('a catalog key sees every product of its store (drafts too) and none of the other store', async () => {
    const rows = await asKey(keys.catalog.secret, (q) => q('SELECT store_id, status FROM products'));
    expect(ids(rows)).toEqual([a.storeId]);
    expect(rows.map((row: { status: string }) => row.status).sort()).toEqual(['active', 'draft']);
  });

  it(
    'a catalog key reads no orders, customers, members, ' + 'keys, users, webhooks or credits, even of its store',
    async () => {
      const counts = await asKey(keys.catalog.secret, (q) =>
        q(`SELECT (SELECT count(*) FROM orders)::int AS orders, (SELECT count(*) FROM order_items)::int AS items,
                (SELECT count(*) FROM customers)::int AS customers, (SELECT count(*) FROM store_members)::int
                  AS members,
                (SELECT count(*) FROM store_api_keys)::int AS keys, (SELECT count(*) FROM users)::int AS users,
                (SELECT count(*) FROM webhooks)::int AS webhooks, (SELECT count(*) FROM credit_ledger)::int AS ledger`),
      );
      expect(counts[0]).toEqual({
        orders: 0,
        items: 0,
        customers: 0,
        members: 0,
        keys: 0,
        users: 0,
        webhooks: 0,
        ledger: 0,
      });
      // The owner, bound the same way, does see them: the zeros above are the policies, not an empty store.
      const owner = await asRequest(api, a.token, (q) => q('SELECT (SELECT count(*) FROM orders)::int AS orders'));
      expect(owner[0].orders).toBeGreaterThan(0);
    },
  );

  it(
    'an orders key reads its store’s orders and their ' + 'customers, and not the catalog beyond active products',
    async () => {
      const rows = await asKey(keys.orders.secret, (q) =>
        q(`SELECT 'order' AS kind, store_id FROM orders UNION ALL SELECT 'customer', store_id FROM customers
         UNION ALL SELECT 'product:' || status, store_id FROM products`),
      );
      expect(ids(rows)).toEqual([a.storeId]);
      expect(new Set(rows.map((row: { kind: string }) => row.kind))).toEqual(
        new Set(['order', 'customer', 'product:active']),
      );
    },
  );

  it('sees only its own store, and may change no store, member or key', async () => {
    await asKey(
      keys.catalog.secret,
      async (q) => {
        expect(ids(await q('SELECT id AS store_id FROM stores'))).toEqual([a.storeId]);
        expect(await q(`UPDATE stores SET name = 'taken' RETURNING id`)).toEqual([[], 0]);
        expect(await q(`UPDATE store_api_keys SET revoked_at = now() RETURNING id`)).toEqual([[], 0]);
        expect(await q(`DELETE FROM store_members RETURNING id`)).toEqual([[], 0]);
      },
      true,
    );
    await expect(
      asKey(keys.catalog.secret, (q) =>
        q(
          `INSERT INTO store_api_keys (store_id, name, prefix, secret_hash, ` +
            `permissions) VALUES ($1, 'x', 'sk_x', $2, '{catalog}')`,
          [a.storeId, createHash('sha256').update('forged').digest()],
        ),
      ),
    ).rejects.toThrow(/row-level security/);
    await expect(asKey(keys.catalog.secret, (q) => q('SELECT secret_hash FROM store_api_keys'))).rejects.toThrow(
      /permission denied/,
    );
    await expect(
      asKey(keys.catalog.secret, (q) => q(`INSERT INTO stores (owner_id, name) SELECT owner_id, 'forged' FROM stores`)),
    ).rejects.toThrow(/row-level security/);
  });

  it('cannot write into another store', async () => {
    await expect(
      asKey(keys.catalog.secret, (q) =>
        q(`INSERT INTO products (store_id, name, price) VALUES ($1, 'Forged', 1)`, [b.storeId]),
      ),
    ).rejects.toThrow(/row-level security/);
    const changed = await asKey(
      keys.catalog.secret,
      (q) => q(`UPDATE products SET name = 'hijacked' WHERE store_id = $1 RETURNING id`, [b.storeId]),
      true,
    );
    expect(changed).toEqual([[], 0]);
    await expect(
      asKey(keys.catalog.secret, (q) =>
        q(`INSERT INTO outbox_events (store_id, event, data) VALUES ($1, 'product.created', '{}')`, [b.storeId]),
      ),
    ).rejects.toThrow(/row-level security/);
  });

  it('settings changed after binding (another store, more permissions) make the key nobody', async () => {
    const seen = await asKey(keys.catalog.secret, async (q) => {
      await q(
        `SELECT set_config('app.api_key_store', $1, true), ` +
          `set_config('app.api_key_permissions', 'catalog,orders', true)`,
        [b.storeId],
      );
      return q(`SELECT (SELECT count(*) FROM products)::int AS products, (SELECT count(*) FROM orders)::int AS orders,
                       (SELECT count(*) FROM stores)::int AS stores, app_api_key_id() AS key`);
    });
    expect(seen[0]).toEqual({ products: 0, orders: 0, stores: 0, key: null });
  });

  it('an event must name the bound key as its actor: another actor, or none, is refused', async () => {
    const marker = `actor-${Date.now()}`;
    const insert = (actor: string) => (q: Query) =>
      q(`INSERT INTO outbox_events (store_id, event, data, actor) VALUES ($1, 'product.updated', $2, ${actor})`, [
        a.storeId,
        JSON.stringify({ marker }),
      ]);
    await expect(asKey(keys.catalog.secret, insert(`'{"type":"user","id":"x"}'`))).rejects.toThrow(
      /row-level security/,
    );
    await expect(asKey(keys.catalog.secret, insert('NULL'))).rejects.toThrow(/row-level security/);
    await asKey(keys.catalog.secret, insert(`jsonb_build_object('type', 'api_key', 'id', '${keys.catalog.id}')`));
    const [[row]] = await system().query(`DELETE FROM outbox_events WHERE data->>'marker' = $1 RETURNING actor`, [
      marker,
    ]);
    expect(row.actor).toEqual({ type: 'api_key', id: keys.catalog.id });
  });

  it('keeps a key’s idempotency keys under its own id, out of the owner’s reach', async () => {
    const owner = await system().query('SELECT owner_id FROM stores WHERE id = $1', [a.storeId]);
    await asKey(
      keys.catalog.secret,
      async (q) => {
        await q(
          `INSERT INTO idempotency_keys (caller, user_id, key, ` +
            `route, fingerprint) VALUES ($1, $2, 'k', 'POST /x', 'f')`,
          [`api_key:${keys.catalog.id}`, keys.catalog.id],
        );
        expect((await q('SELECT user_id FROM idempotency_keys')).map((r: { user_id: string }) => r.user_id)).toEqual([
          keys.catalog.id,
        ]);
        await expect(
          q(
            `INSERT INTO idempotency_keys (caller, user_id, key, ` +
              `route, fingerprint) VALUES ($1, $2, 'k2', 'POST /x', 'f')`,
            [`user:${owner[0].owner_id}`, owner[0].owner_id],
          ),
        ).rejects.toThrow(/row-level security/);
      },
      true,
    );
  });

  it(
    'a later transaction of a key binds with the proof ' + 'of its id only the API can make, to the same walls',
    async () => {
      const proof = (id: string) =>
        createHmac('sha256', api.settings.get(databaseConfig).requestBindingKey!).update(`api_key:${id}`).digest('hex');
      const request = api.app.get<DataSource>(getDataSourceToken());
      const seen = await request.transaction(async (manager) => {
        const [bound] = await manager.query('SELECT app_bind_api_key($1, $2) AS bound', [
          keys.catalog.id,
          proof(keys.catalog.id),
        ]);
        expect(bound.bound).toBe(true);
        return manager.query(`SELECT (SELECT count(*) FROM orders)::int AS orders, app_api_key_id() AS key,
                                   ARRAY(SELECT DISTINCT store_id FROM products) AS stores`);
      });
      expect(seen[0]).toEqual({ orders: 0, key: keys.catalog.id, stores: [a.storeId] });
      // A proof made for one key does not bind another; a revoked key's own proof binds nothing.
      const [crossed] = await request.query('SELECT app_bind_api_key($1, $2) AS bound', [
        keys.orders.id,
        proof(keys.catalog.id),
      ]);
      expect(crossed.bound).toBe(false);
      const [revoked] = await request.query('SELECT app_bind_api_key($1, $2) AS bound', [
        keys.revoked.id,
        proof(keys.revoked.id),
      ]);
      expect(revoked.bound).toBe(false);
    },
  );

  it('a revoked key binds nothing, and neither does a made-up proof', async () => {
    const hash = createHash('sha256').update(keys.revoked.secret).digest('hex');
    const request = api.app.get<DataSource>(getDataSourceToken());
    expect(
      await request.query('SELECT * FROM app_authorize_api_key($1, NULL, NULL, NULL, false, true)', [hash]),
    ).toEqual([]);
    const [bound] = await request.query('SELECT app_bind_api_key($1, $2) AS bound', [keys.catalog.id, 'f'.repeat(64)]);
    expect(bound.bound).toBe(false);
    const [touched] = await request.query('SELECT app_touch_api_key($1) AS touched', [hash]);
    expect(touched.touched).toBe(false);
  });
});
