import { getDataSourceToken } from '@nestjs/typeorm';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { databaseConfig, OWNER_ROLE, REQUEST_ROLE, sessionProof, SYSTEM_ROLE } from '@app/core';
import { merchantWithStore, signUp, startApp, TEST_ADMIN, uniqueEmail, type TestApp } from './support/app.js';
import { asRequest, sessionIdOf, SYSTEM_DATA_SOURCE, type Query } from './support/database.js';

type Tenant = Awaited<ReturnType<typeof merchantWithStore>>;

/**
 * Row-level security as a wall of its own: queries with no tenant filter at all, in transactions
 * opened exactly as a request's (request login, bound to the session by app_bind_request), and hostile
 * SQL of the kind an injection would run there.
 */
describe('row-level security', () => {
  let api: TestApp;
  let system: DataSource;
  let a: Tenant;
  let b: Tenant;
  let customerToken: string;
  let customerId: string;
  let ordersA: string[];
  let productA: string;
  let orderB: string;

  const adminUrl = () => process.env.DATABASE_URL!;

  beforeAll(async () => {
    api = await startApp({ ADMIN_EMAIL: TEST_ADMIN.email, ADMIN_PASSWORD: TEST_ADMIN.password });
    system = api.app.get<DataSource>(SYSTEM_DATA_SOURCE);
    a = await merchantWithStore(api, 'Tenant A');
    b = await merchantWithStore(api, 'Tenant B');
    const product = async (tenant: Tenant) =>
      (
        await api.request('POST', `/functions/v1/stores/${tenant.storeId}/products`, {
          token: tenant.token,
          body: { name: 'Mug', price: 10, inventory_quantity: 100, status: 'active' },
        })
      ).body.product.id as string;
    productA = await product(a);
    const productB = await product(b);
    const customer = await signUp(api, { role: 'customer', store_id: a.storeId });
    customerToken = customer.access_token;
    const order = async (token: string, storeId: string, productId: string) => {
      const placed = await api.request('POST', `/functions/v1/stores/${storeId}/orders`, {
        token,
        body: { items: [{ product_id: productId, quantity: 1 }] },
      });
      expect(placed.status).toBe(201);
      return placed.body.order.id as string;
    };
    const own = await order(customerToken, a.storeId, productA);
    const staffOrder = await order(a.token, a.storeId, productA);
    ordersA = [own, staffOrder];
    orderB = await order(b.token, b.storeId, productB);
    customerId = (await system.query('SELECT id FROM customers WHERE user_id = $1', [customer.user.id]))[0].id;
    // Rows of store B in every table a request could want to reach.
    await api.request('POST', '/functions/v1/webhooks/register', {
      token: b.token,
      body: { store_id: b.storeId, url: 'https://example.com/hook', events: ['order.created'] },
    });
    await system.query(
      `INSERT INTO social_accounts (store_id, platform, platform_account_id, ` +
        `username, access_token_sealed) VALUES ($1, 'x', '1', 'b', 'sealed')`,
      [b.storeId],
    );
  });
  afterAll(() => api.close());

  const customer = <T>(work: (q: Query) => Promise<T>) => asRequest(api, customerToken, work);

  it('request transactions run as a login that owns nothing, bypasses nothing and is not a superuser', async () => {
    const [row] = await customer((q) =>
      q(
        `SELECT current_user AS name, r.rolsuper, r.rolbypassrls,
                pg_has_role(current_user, $1, 'MEMBER') AS owner, pg_has_role(current_user, $2, 'MEMBER') AS system,
                pg_has_role(current_user, $3, 'MEMBER') AS requests,
                (SELECT count(*)::int FROM pg_class c WHERE c.relowner = r.oid) AS owned
           FROM pg_roles r WHERE r.rolname = current_user`,
        [OWNER_ROLE, SYSTEM_ROLE, REQUEST_ROLE],
      ),
    );
    expect(row).toMatchObject({
      name: api.settings.get(databaseConfig).requestDatabaseUrl.match(/\/\/([^:@]+)/)![1],
      rolsuper: false,
      rolbypassrls: false,
    });
    expect(row).toMatchObject({ owner: false, system: false, requests: true, owned: 0 });
  });

  it('every table forces row-level security, and none belongs to a login the app holds', async () => {
    const admin = new pg.Client({ connectionString: adminUrl() });
    await admin.connect();
    try {
      const { rows } = await admin.query(
        `SELECT c.relname, c.relrowsecurity, c.relforcerowsecurity, pg_get_userbyid(c.relowner) AS owner
           FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname <> 'migrations'`,
      );
      expect(rows.length).toBeGreaterThan(20);
      for (const row of rows)
        expect(row, row.relname).toMatchObject({ relrowsecurity: true, relforcerowsecurity: true, owner: OWNER_ROLE });
    } finally {
      await admin.end();
    }
  });

  it(
    'every SECURITY DEFINER function belongs to the system role, ' +
      'pins its search_path and is callable by requests, not by PUBLIC',
    async () => {
      const admin = new pg.Client({ connectionString: adminUrl() });
      await admin.connect();
      try {
        const { rows } = await admin.query(
          `SELECT p.proname AS name, pg_get_userbyid(p.proowner) AS owner, p.proconfig AS config,
                EXISTS (SELECT 1 FROM aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
                         WHERE a.grantee = 0 AND a.privilege_type = 'EXECUTE') AS public_execute,
                has_function_privilege($1, p.oid, 'EXECUTE') AS requests
           FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
          WHERE n.nspname = 'public' AND p.prosecdef`,
          [REQUEST_ROLE],
        );
        // The social connect's start and callback (libs/social/src/sql/accounts.sql) among them.
        expect(rows.map((row) => row.name)).toEqual(
          expect.arrayContaining([
            'app_bind_request',
            'app_authorize',
            'app_start_connect',
            'app_take_connect_state',
            'app_complete_connect',
          ]),
        );
        for (const row of rows) {
          expect(row, row.name).toMatchObject({
            owner: SYSTEM_ROLE,
            config: ['search_path=pg_catalog, public, pg_temp'],
            public_execute: false,
            requests: true,
          });
        }
      } finally {
        await admin.end();
      }
    },
  );

  describe('hostile SQL inside a customer’s request transaction', () => {
    it('cannot leave the request role: RESET ROLE, SET ROLE to the owner, the system or postgres', async () => {
      const login = await customer(async (q) => {
        await q('RESET ROLE');
        return (await q('SELECT current_user AS name'))[0].name;
      });
      expect(login).not.toBe('postgres');
      for (const role of [OWNER_ROLE, SYSTEM_ROLE, 'postgres']) {
        await expect(
          customer((q) => q(`SET ROLE ${role}`)),
          role,
        ).rejects.toThrow(/permission denied/);
      }
      await expect(customer((q) => q('SET SESSION AUTHORIZATION postgres'))).rejects.toThrow(/permission denied/);
    });

    it('cannot run programs or read the server’s secrets', async () => {
      await expect(customer((q) => q(`COPY (SELECT 1) TO PROGRAM 'true'`))).rejects.toThrow(
        /permission denied|must be superuser/,
      );
      await expect(customer((q) => q('SELECT rolpassword FROM pg_authid'))).rejects.toThrow(/permission denied/);
      await expect(customer((q) => q(`SELECT pg_read_file('postgresql.conf')`))).rejects.toThrow(/permission denied/);
      await expect(customer((q) => q('SELECT * FROM storefront_private.installation'))).rejects.toThrow(
        /permission denied/,
      );
      await expect(customer((q) => q(`SELECT storefront_private.hmac('session:x')`))).rejects.toThrow(
        /permission denied/,
      );
      await expect(customer((q) => q('CREATE TEMP TABLE t (x int)'))).rejects.toThrow(/permission denied/);
      await expect(customer((q) => q('CREATE TABLE public.t (x int)'))).rejects.toThrow(/permission denied/);
    });

    it('cannot widen its context: app.role = admin or another user id makes it nobody, not someone else', async () => {
      const forged = await customer(async (q) => {
        await q(`SELECT set_config('app.role', 'admin', true)`);
        return q('SELECT id FROM stores');
      });
      expect(forged).toEqual([]);
      const impersonated = await customer(async (q) => {
        await q(`SELECT set_config('app.user_id', $1, true)`, [b.session.user.id]);
        return q('SELECT id FROM stores');
      });
      expect(impersonated).toEqual([]);
      // A context copied from another transaction (the same MAC, the same settings) is worth nothing there.
      const settings = await customer((q) =>
        q(`SELECT current_setting('app.user_id') AS u, current_setting('app.role') AS r,
          current_setting('app.session_id') AS s,
                  current_setting('app.context') AS c`),
      );
      const replayed = await api.app.get<DataSource>(getDataSourceToken()).transaction(async (manager) => {
        const [copy] = settings;
        await manager.query(
          `SELECT set_config('app.user_id', $1, true), set_config('app.role', $2, true),
            set_config('app.session_id', $3, true),
                  set_config('app.context', $4, true)`,
          [copy.u, copy.r, copy.s, copy.c],
        );
        return manager.query('SELECT id FROM orders');
      });
      expect(replayed).toEqual([]);
    });

    it('cannot bind another session without the proof only the API can make', async () => {
      const other = sessionIdOf(b.token);
      const bound = await customer((q) => q(`SELECT * FROM app_bind_request($1, $2)`, [other, 'f'.repeat(64)]));
      expect(bound).toEqual([]);
      const visible = await customer(async (q) => {
        await q(`SELECT * FROM app_bind_request($1, $2)`, [other, 'f'.repeat(64)]);
        return q('SELECT id FROM stores WHERE id = $1', [b.storeId]);
      });
      expect(visible).toEqual([]);
    });

    it(
      'sees only its own rows of store A and nothing of store ' +
        "B's orders, customers, webhooks, social accounts or credits",
      async () => {
        const seen = await customer(async (q) => ({
          orders: (await q('SELECT id FROM orders')).map((r: { id: string }) => r.id),
          customers: (await q('SELECT id FROM customers')).map((r: { id: string }) => r.id),
          webhooks: await q('SELECT id FROM webhooks'),
          deliveries: await q('SELECT id FROM webhook_deliveries'),
          social: await q('SELECT id FROM social_accounts'),
          ledger: await q('SELECT id FROM credit_ledger'),
          accounts: await q('SELECT store_id FROM credit_accounts'),
          notifications: await q('SELECT id FROM merchant_notifications'),
        }));
        expect(seen.orders).toEqual([ordersA[0]]);
        expect(seen.customers).toEqual([customerId]);
        expect(seen).toMatchObject({
          webhooks: [],
          deliveries: [],
          social: [],
          ledger: [],
          accounts: [],
          notifications: [],
        });
        expect(await customer((q) => q('SELECT id FROM orders WHERE id = $1', [orderB]))).toEqual([]);
      },
    );

    it("cannot change another store's order, pay its own, or append another store's events", async () => {
      const [updated] = await customer((q) =>
        q(`UPDATE orders SET status = 'cancelled' WHERE id = $1 RETURNING id`, [orderB]),
      );
      expect(updated).toEqual([]);
      await expect(customer((q) => q(`UPDATE orders SET status = 'paid' WHERE id = $1`, [ordersA[0]]))).rejects.toThrow(
        /row-level security/,
      );
      await expect(customer((q) => q(`UPDATE orders SET total = 0 WHERE id = $1`, [ordersA[0]]))).rejects.toThrow(
        /permission denied/,
      );
      await expect(
        customer((q) =>
          q(
            `INSERT INTO outbox_events (store_id, event, data, actor) ` +
              `VALUES ($1, 'order.paid', '{}', (SELECT app_actor()))`,
            [b.storeId],
          ),
        ),
      ).rejects.toThrow(/row-level security/);
      await expect(
        customer((q) =>
          q(`INSERT INTO credit_ledger (store_id, kind, amount, reference) VALUES ($1, 'grant', 100000, 'x')`, [
            a.storeId,
          ]),
        ),
      ).rejects.toThrow(/permission denied/);
      const [order] = await system.query('SELECT status, total FROM orders WHERE id = $1', [orderB]);
      expect(order.status).toBe('pending');
    });

    it('cannot mint credits, choose or bend order numbers, or signal other backends', async () => {
      // The welcome grant's amount is the installation's; the caller names only a store it just made.
      await expect(
        asRequest(api, a.token, (q) => q(`SELECT app_open_credit_account($1, 2000000000)`, [a.storeId])),
      ).rejects.toThrow(/does not exist/);
      const minter = await signUp(api);
      const minted = await asRequest(api, minter.access_token, async (q) => {
        const [store] = await q(
          `INSERT INTO stores (owner_id, name) VALUES ((SELECT app_user_id()), 'minted') RETURNING id`,
        );
        await q(`SELECT app_open_credit_account($1)`, [store.id]);
        await q(`SELECT app_open_credit_account($1)`, [store.id]);
        return store.id as string;
      });
      const [account] = await system.query('SELECT balance FROM credit_accounts WHERE store_id = $1', [minted]);
      expect(account.balance).toBe(50);
      await expect(customer((q) => q('UPDATE store_order_counters SET last_number = 1000'))).rejects.toThrow(
        /permission denied/,
      );
      await expect(customer((q) => q('SELECT last_number FROM store_order_counters'))).rejects.toThrow(
        /permission denied/,
      );
      // A customer's own order, written in SQL: the database numbers it and prices its items from the catalog.
      const squatted = await customer(async (q) => {
        const [order] = await q(
          `INSERT INTO orders (store_id, order_number, customer_id, currency, ` +
            `total) VALUES ($1, '999999', $2, 'USD', 10) RETURNING id, order_number`,
          [a.storeId, customerId],
        );
        await q(
          `INSERT INTO order_items (order_id, store_id, product_id, position, ` +
            `name, quantity, price) VALUES ($1, $2, $3, 1, 'free', 1, 0)`,
          [order.id, a.storeId, productA],
        );
        await q('SELECT * FROM app_take_order_stock($1)', [order.id]);
        return { ...order, items: await q('SELECT name, price FROM order_items WHERE order_id = $1', [order.id]) };
      });
      expect(squatted.order_number).not.toBe('999999');
      expect(squatted.items).toEqual([{ name: 'Mug', price: '10.00' }]);
      // A total its items do not add up to is refused when the transaction commits.
      await expect(
        customer(async (q) => {
          const [order] = await q(
            `INSERT INTO orders (store_id, customer_id, currency, total) VALUES ($1, $2, 'USD', 0.01) RETURNING id`,
            [a.storeId, customerId],
          );
          await q(
            `INSERT INTO order_items (order_id, store_id, product_id, ` +
              `position, name, quantity, price) VALUES ($1, $2, $3, 1, 'x', 3, 0)`,
            [order.id, a.storeId, productA],
          );
        }),
      ).rejects.toThrow(/totals/);
      // Nor may a customer announce what only the store does.
      await expect(
        customer((q) =>
          q(
            `INSERT INTO outbox_events (store_id, event, data, actor) ` +
              `VALUES ($1, 'order.paid', '{}', (SELECT app_actor()))`,
            [a.storeId],
          ),
        ),
      ).rejects.toThrow(/row-level security/);
      await expect(customer((q) => q('SELECT pg_terminate_backend(pg_backend_pid())'))).rejects.toThrow(
        /permission denied/,
      );
      await expect(customer((q) => q(`SELECT pg_advisory_lock(hashtext('storefront:migrations'))`))).rejects.toThrow(
        /permission denied/,
      );
      await expect(customer((q) => q('SELECT password_hash FROM users'))).rejects.toThrow(/permission denied/);
      await expect(
        asRequest(api, a.token, (q) =>
          q(
            `INSERT INTO ai_images (store_id, content_type, width, ` +
              `height, bytes) VALUES ($1, 'text/html', 1, 1, '\\x3c68313e')`,
            [a.storeId],
          ),
        ),
      ).rejects.toThrow(/ai_images_png/);
    });

    it(
      "moves no stock but its own orders' items: no free " + 'adjustment, no second take, no return without a cancel',
      async () => {
        const stock = async () =>
          (await system.query('SELECT inventory_quantity FROM products WHERE id = $1', [productA]))[0]
            .inventory_quantity;
        const before = await stock();
        expect(await customer((q) => q('SELECT * FROM app_move_stock($1, $2, false)', [productA, -before]))).toEqual(
          [],
        );
        await expect(customer((q) => q('SELECT * FROM app_take_order_stock($1)', [ordersA[0]]))).rejects.toThrow(
          /has taken its stock|not a new order/,
        );
        await expect(customer((q) => q('SELECT * FROM app_return_order_stock($1)', [ordersA[0]]))).rejects.toThrow(
          /was not cancelled/,
        );
        // An order that does not take its stock does not commit.
        await expect(
          customer(async (q) => {
            const [order] = await q(
              `INSERT INTO orders (store_id, customer_id, currency, total) VALUES ($1, $2, 'USD', 10) RETURNING id`,
              [a.storeId, customerId],
            );
            await q(
              `INSERT INTO order_items (order_id, store_id, product_id, ` +
                `position, name, quantity, price) VALUES ($1, $2, $3, 1, 'x', 1, 0)`,
              [order.id, a.storeId, productA],
            );
          }),
        ).rejects.toThrow(/did not take its stock/);
        expect(await stock()).toBe(before);
      },
    );

    it(
      'leaves nothing on its pooled connection for the next ' + 'request: settings are reset when the next one binds',
      async () => {
        const connection = new pg.Client({ connectionString: api.settings.get(databaseConfig).requestDatabaseUrl });
        await connection.connect();
        try {
          const sessionId = sessionIdOf(customerToken);
          const bind = () =>
            connection.query('SELECT 1 FROM app_bind_request($1, $2)', [
              sessionId,
              sessionProof(api.settings.get(databaseConfig).requestBindingKey!, sessionId),
            ]);
          await connection.query('BEGIN');
          await bind();
          await connection.query(`SET default_transaction_read_only = on`);
          await connection.query(`SET statement_timeout = '5s'`);
          await connection.query('COMMIT');
          expect(
            (await connection.query('SHOW default_transaction_read_only')).rows[0].default_transaction_read_only,
          ).toBe('on');
          await connection.query('BEGIN');
          await bind();
          await connection.query('COMMIT');
          expect(
            (await connection.query('SHOW default_transaction_read_only')).rows[0].default_transaction_read_only,
          ).toBe('off');
          expect((await connection.query('SHOW statement_timeout')).rows[0].statement_timeout).toBe('0');
        } finally {
          await connection.end();
        }
      },
    );

    it('reads no user but itself, and no session or refresh token at all', async () => {
      const users = await customer((q) => q('SELECT id FROM users'));
      expect(users).toHaveLength(1);
      await expect(customer((q) => q('SELECT 1 FROM auth_sessions'))).rejects.toThrow(/permission denied/);
      await expect(customer((q) => q('SELECT 1 FROM auth_refresh_tokens'))).rejects.toThrow(/permission denied/);
    });
  });

  it(
    'the customer search function (a definer, past the policies) ' +
      'answers ids of stores where the caller holds customers only',
    async () => {
      const created = await api.request('POST', `/functions/v1/stores/${b.storeId}/customers`, {
        token: b.token,
        body: { name: 'Bea', email: uniqueEmail('bea') },
      });
      expect(created.status).toBe(201);
      const search = async (token: string, storeId: string) =>
        (
          await asRequest(api, token, (q) =>
            q('SELECT id FROM app_search_customers($1, $2, NULL, NULL, 100) AS id', [storeId, '%']),
          )
        ).map((row: { id: string }) => row.id);
      expect(await search(a.token, a.storeId)).toContain(customerId);
      expect(await search(b.token, b.storeId)).toEqual([created.body.customer.id]);
      expect(await search(a.token, b.storeId)).toEqual([]);
      expect(await search(customerToken, a.storeId)).toEqual([]);
    },
  );

  it(
    'an unfiltered SELECT of a merchant sees only its ' + 'own store; changes to another store change nothing',
    async () => {
      const ids = await asRequest(api, a.token, (q) => q('SELECT id FROM stores'));
      expect(ids.map((r: { id: string }) => r.id)).toEqual([a.storeId]);
      const [updated] = await asRequest(api, a.token, (q) =>
        q(`UPDATE stores SET name = 'hijacked' WHERE id = $1 RETURNING id`, [b.storeId]),
      );
      expect(updated).toEqual([]);
      await expect(
        asRequest(api, a.token, (q) =>
          q(`INSERT INTO stores (owner_id, name) VALUES ($1, 'forged')`, [b.session.user.id]),
        ),
      ).rejects.toThrow(/row-level security/);
      const [store] = await system.query('SELECT name FROM stores WHERE id = $1', [b.storeId]);
      expect(store.name).toBe('Tenant B');
    },
  );

  it(
    'a temporary table cannot shadow what the SECURITY DEFINER ' +
      'helpers read (temporary tables are refused outright)',
    async () => {
      await expect(
        asRequest(api, a.token, (q) => q('CREATE TEMP TABLE stores (id uuid, owner_id uuid)')),
      ).rejects.toThrow(/permission denied/);
    },
  );

  it(
    'the admin role comes from the database: the admin ' + 'sees every store, a merchant claiming admin does not',
    async () => {
      const admin = await api.request('POST', '/auth/v1/token?grant_type=password', {
        headers: { apikey: 'test-public-api-key-0123456789' },
        body: { email: TEST_ADMIN.email, password: TEST_ADMIN.password },
      });
      expect(admin.status).toBe(200);
      const ids = (await asRequest(api, admin.body.access_token, (q) => q('SELECT id FROM stores'))).map(
        (r: { id: string }) => r.id,
      );
      expect(ids).toEqual(expect.arrayContaining([a.storeId, b.storeId]));
      const merchant = await signUp(api, {}, uniqueEmail('claims-admin'));
      const seen = await asRequest(api, merchant.access_token, (q) => q('SELECT id FROM stores'));
      expect(seen).toEqual([]);
    },
  );

  it('with no session bound, nothing is visible', async () => {
    const rows = await api.app
      .get<DataSource>(getDataSourceToken())
      .transaction((manager) => manager.query('SELECT id FROM stores'));
    expect(rows).toEqual([]);
  });

  it('a session that ended cannot be bound any more', async () => {
    const user = await signUp(api);
    const out = await api.request('POST', '/auth/v1/logout', { token: user.access_token });
    expect(out.status).toBe(204);
    await expect(asRequest(api, user.access_token, (q) => q('SELECT 1'))).rejects.toThrow(/could not be bound/);
  });
});
