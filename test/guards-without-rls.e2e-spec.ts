import type { DataSource } from 'typeorm';
import { databaseConfig } from '@app/core';
import { merchantWithStore, signUp, startApp, uniqueEmail, type HttpResult, type TestApp } from './support/app.js';
import { asRequest, BYPASS_LOGIN, startAppWithoutRls, SYSTEM_DATA_SOURCE } from './support/database.js';
import { connectSandbox } from './support/social.js';

/**
 * The guards as a wall of their own: an app whose request login bypasses row-level security (the
 * test-only UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS), so a guard that lets the wrong caller through is
 * seen here even where RLS would have hidden it. A role × route matrix over every store-scoped route
 * of /docs-json: another tenant's ids answer 404, a missing permission 403, a customer another
 * customer's record 404 and a staff-only route 403.
 */
type Permission = 'catalog' | 'orders' | 'customers' | 'ai' | 'social' | 'webhooks' | 'billing';

/** The ids of one store's rows, by the name routes give them. */
type Ids = Record<
  | 'store_id'
  | 'product_id'
  | 'customer_id'
  | 'order_id'
  | 'webhook_id'
  | 'delivery_id'
  | 'account_id'
  | 'post_id'
  | 'member_id',
  string
>;

interface Route {
  /**
   * What the route needs: `read` (anyone with access to the store, customers too unless `customers:
   * false`), `manage` (the owner), or a member's permission.
   */
  need: 'read' | 'manage' | Permission;
  customers?: false;
  /** The route names a record of a store (not the store itself): a customer who does not own it gets 404, not 403. */
  record?: 'product' | 'customer' | 'order' | 'webhook' | 'social_account' | 'social_post';
  /** Where the store is named when it is not in the path. */
  body?: (ids: Ids) => Record<string, unknown>;
  query?: boolean;
  /** Store keys may not call the route although it needs no more than a permission (403 for every key). */
  storeKeys?: false;
}

/**
 * Every store-scoped route, with what it needs, written down here (not read from the code under
 * test): a new store-scoped route fails the first test until it is added.
 */
const ROUTES: Record<string, Route> = {
  'GET /functions/v1/stores/{store_id}': { need: 'read' },
  'PATCH /functions/v1/stores/{store_id}': { need: 'manage' },
  'GET /functions/v1/stores/{store_id}/mail-settings': { need: 'manage' },
  'PATCH /functions/v1/stores/{store_id}/mail-settings': { need: 'manage' },
  'POST /functions/v1/stores/{store_id}/members': { need: 'manage' },
  'GET /functions/v1/stores/{store_id}/members': { need: 'manage' },
  'PATCH /functions/v1/stores/{store_id}/members/{member_id}': { need: 'manage' },
  'DELETE /functions/v1/stores/{store_id}/members/{member_id}': { need: 'manage' },
  'POST /functions/v1/stores/{store_id}/api-keys': { need: 'manage' },
  'GET /functions/v1/stores/{store_id}/api-keys': { need: 'manage' },
  'POST /functions/v1/stores/{store_id}/products': { need: 'catalog' },
  'GET /functions/v1/stores/{store_id}/products': { need: 'read' },
  'GET /functions/v1/products/{product_id}': { need: 'read', record: 'product' },
  'PATCH /functions/v1/products/{product_id}': { need: 'catalog', record: 'product' },
  'DELETE /functions/v1/products/{product_id}': { need: 'catalog', record: 'product' },
  'POST /functions/v1/products/{product_id}/inventory': { need: 'catalog', record: 'product' },
  'POST /functions/v1/stores/{store_id}/customers': { need: 'customers' },
  'GET /functions/v1/stores/{store_id}/customers': { need: 'customers' },
  'GET /functions/v1/customers/{customer_id}': { need: 'customers', record: 'customer' },
  'PATCH /functions/v1/customers/{customer_id}': { need: 'customers', record: 'customer' },
  'POST /functions/v1/stores/{store_id}/orders': { need: 'read' },
  'GET /functions/v1/stores/{store_id}/orders': { need: 'orders' },
  'GET /functions/v1/orders/{order_id}': { need: 'orders', record: 'order' },
  'PATCH /functions/v1/orders/{order_id}': { need: 'orders', record: 'order' },
  'POST /functions/v1/webhooks/register': { need: 'webhooks', body: (ids) => ({ store_id: ids.store_id }) },
  'GET /functions/v1/webhooks': { need: 'webhooks', query: true },
  'GET /functions/v1/webhooks/{webhook_id}': { need: 'webhooks', record: 'webhook' },
  'PATCH /functions/v1/webhooks/{webhook_id}': { need: 'webhooks', record: 'webhook' },
  'DELETE /functions/v1/webhooks/{webhook_id}': { need: 'webhooks', record: 'webhook' },
  'POST /functions/v1/webhooks/{webhook_id}/rotate-secret': { need: 'webhooks', record: 'webhook' },
  'GET /functions/v1/webhooks/{webhook_id}/deliveries': { need: 'webhooks', record: 'webhook' },
  'POST /functions/v1/webhooks/{webhook_id}/test': { need: 'webhooks', record: 'webhook' },
  'POST /functions/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver': {
    need: 'webhooks',
    record: 'webhook',
  },
  'POST /functions/v1/webhooks/{webhook_id}/recover': { need: 'webhooks', record: 'webhook' },
  'GET /functions/v1/notifications': { need: 'webhooks', query: true },
  'GET /functions/v1/stores/{store_id}/events': { need: 'webhooks' },
  'GET /functions/v1/credits': { need: 'billing', customers: false, query: true },
  'POST /functions/v1/social-connect': {
    need: 'social',
    storeKeys: false,
    body: (ids) => ({ store_id: ids.store_id, platform: 'x' }),
  },
  'GET /functions/v1/social-accounts': { need: 'social', query: true },
  'DELETE /functions/v1/social-accounts/{account_id}': { need: 'social', record: 'social_account' },
  'POST /functions/v1/social-publish': { need: 'social', body: (ids) => ({ store_id: ids.store_id }) },
  'DELETE /functions/v1/social-publish/{post_id}': { need: 'social', record: 'social_post' },
  'GET /functions/v1/social-posts': { need: 'social', query: true },
  'POST /functions/v1/generate-product': { need: 'ai', customers: false, body: (ids) => ({ store_id: ids.store_id }) },
  'POST /functions/v1/generate-blog-cover': {
    need: 'ai',
    customers: false,
    body: (ids) => ({ store_id: ids.store_id }),
  },
  'POST /functions/v1/generate-blog-autopilot': {
    need: 'ai',
    customers: false,
    body: (ids) => ({ store_id: ids.store_id }),
  },
  'POST /functions/v1/research-social-context': {
    need: 'ai',
    customers: false,
    body: (ids) => ({ store_id: ids.store_id }),
  },
  'POST /functions/v1/social-generate-content': {
    need: 'ai',
    customers: false,
    body: (ids) => ({ product_id: ids.product_id }),
  },
};

/** Two members of store A with complementary permissions: every permission is missing for one of them. */
const MEMBER_PERMISSIONS: Record<'shop' | 'back', Permission[]> = {
  shop: ['catalog', 'customers'],
  back: ['orders', 'webhooks', 'social', 'billing', 'ai'],
};

describe('the guards alone (row-level security out of the way)', () => {
  let api: TestApp;
  let system: DataSource;
  let doc: { paths: Record<string, Record<string, { responses?: Record<string, { description?: string }> }>> };
  const ids: Record<'a' | 'b', Ids> = { a: {} as Ids, b: {} as Ids };
  const tokens: Record<
    'ownerA' | 'ownerB' | 'shop' | 'back' | 'customer' | 'otherCustomer' | 'keyAll' | 'keyShop',
    string
  > = {} as never;
  /** Records of store A that belong to the customer of A (its customer record, its order). */
  const own: { customer_id: string; order_id: string } = {} as never;

  beforeAll(async () => {
    api = await startAppWithoutRls({
      RATE_LIMIT_PER_MINUTE: '1000000',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      // Its own Bull queues: jobs made here stay with this app.
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}walls:`,
    });
    system = api.app.get<DataSource>(SYSTEM_DATA_SOURCE);
    doc = (await api.request('GET', '/docs-json')).body;
    const call = async (token: string, method: string, path: string, body?: unknown) => {
      const result = await api.request(method, `/functions/v1${path}`, { token, body });
      if (result.status >= 300) throw new Error(`${method} ${path}: ${result.status} ${JSON.stringify(result.body)}`);
      return result.body;
    };
    for (const key of ['a', 'b'] as const) {
      const { token, storeId } = await merchantWithStore(api, `Walls ${key.toUpperCase()}`);
      tokens[key === 'a' ? 'ownerA' : 'ownerB'] = token;
      const product = await call(token, 'POST', `/stores/${storeId}/products`, {
        name: 'Mug',
        price: 10,
        inventory_quantity: 100,
        status: 'active',
      });
      const customer = await call(token, 'POST', `/stores/${storeId}/customers`, {
        name: 'Walk-in',
        email: uniqueEmail('walk-in'),
      });
      const order = await call(token, 'POST', `/stores/${storeId}/orders`, {
        customer_id: customer.customer.id,
        items: [{ product_id: product.product.id, quantity: 1 }],
      });
      const webhook = await call(token, 'POST', '/webhooks/register', {
        store_id: storeId,
        url: 'http://127.0.0.1:9/hook',
        events: ['order.created'],
      });
      // A finished delivery, written as the worker would: nothing in this app picks it up.
      const [delivery] = await system.query(
        `INSERT INTO webhook_deliveries (webhook_id, store_id, event_id, event, body, status, next_attempt_at)
         VALUES ($1, $2, gen_random_uuid(), 'order.created', '{}', 'failed', NULL) RETURNING id`,
        [webhook.webhook.id, storeId],
      );
      const accountId = await connectSandbox(api, token, storeId, 'x');
      const post = await call(token, 'POST', '/social-publish', {
        store_id: storeId,
        platforms: ['x'],
        content: { text: 'Tomorrow' },
        schedule_at: new Date(Date.now() + 86_400_000).toISOString(),
      });
      const invite = await call(token, 'POST', `/stores/${storeId}/members`, {
        email: uniqueEmail('invitee'),
        permissions: ['catalog'],
      });
      ids[key] = {
        store_id: storeId,
        product_id: product.product.id,
        customer_id: customer.customer.id,
        order_id: order.order.id,
        webhook_id: webhook.webhook.id,
        delivery_id: delivery.id,
        account_id: accountId,
        post_id: post.results[0].post_id,
        member_id: invite.member.id,
      };
    }
    for (const [who, permissions] of Object.entries(MEMBER_PERMISSIONS) as ['shop' | 'back', Permission[]][]) {
      const email = uniqueEmail(`member-${who}`);
      const invite = await call(tokens.ownerA, 'POST', `/stores/${ids.a.store_id}/members`, { email, permissions });
      tokens[who] = (await signUp(api, { invite_token: invite.invite_token }, email)).access_token;
    }
    // Two store keys of store A: every permission, and the shop member's.
    const all: Permission[] = ['catalog', 'orders', 'customers', 'ai', 'social', 'webhooks', 'billing'];
    for (const [who, permissions] of [
      ['keyAll', all],
      ['keyShop', MEMBER_PERMISSIONS.shop],
    ] as const) {
      tokens[who] = (
        await call(tokens.ownerA, 'POST', `/stores/${ids.a.store_id}/api-keys`, { name: who, permissions })
      ).secret;
    }
    // Two customers of store A, each with an order of its own.
    for (const who of ['customer', 'otherCustomer'] as const) {
      const session = await signUp(api, { role: 'customer', store_id: ids.a.store_id });
      tokens[who] = session.access_token;
      const placed = await call(session.access_token, 'POST', `/stores/${ids.a.store_id}/orders`, {
        items: [{ product_id: ids.a.product_id, quantity: 1 }],
      });
      if (who === 'customer') {
        own.order_id = placed.order.id;
        own.customer_id = (await system.query('SELECT id FROM customers WHERE user_id = $1', [session.user.id]))[0].id;
      } else {
        // Store A's ids for a customer's calls are the other customer's records.
        ids.a.order_id = placed.order.id;
        ids.a.customer_id = (
          await system.query('SELECT id FROM customers WHERE user_id = $1', [session.user.id])
        )[0].id;
      }
    }
  });
  afterAll(() => api?.close());

  /** Calls `route` (a key of ROUTES) on the rows of `where`, as `token`. */
  const callRoute = (route: string, where: Ids, token: string): Promise<HttpResult> => {
    const [method, template] = route.split(' ');
    const rule = ROUTES[route];
    let path = template.replace(/\{(\w+)\}/g, (_, name: keyof Ids) => where[name]);
    if (rule.query) path += `?store_id=${where.store_id}`;
    return api.request(method, path, {
      token,
      body: rule.body?.(where) ?? (method === 'GET' || method === 'DELETE' ? undefined : {}),
    });
  };

  /** Runs every route for one caller and collects the answers that differ from `expected`. */
  const mismatches = async (token: string, where: Ids, expected: (route: string, rule: Route) => number | null) => {
    const wrong: string[] = [];
    for (const [route, rule] of Object.entries(ROUTES)) {
      const status = expected(route, rule);
      if (status === null) continue;
      const result = await callRoute(route, where, token);
      if (result.status !== status)
        wrong.push(`${route}: ${result.status} (expected ${status}) ${JSON.stringify(result.body).slice(0, 200)}`);
    }
    return wrong;
  };

  it(
    'runs with row-level security really out of the way: ' + 'the request login bypasses it and sees the other store',
    async () => {
      const [login] = await asRequest(api, tokens.ownerA, (q) =>
        q(`SELECT current_user AS name, rolbypassrls, rolsuper FROM pg_roles WHERE rolname = current_user`),
      );
      expect(login).toEqual({ name: BYPASS_LOGIN, rolbypassrls: true, rolsuper: false });
      const seen = await asRequest(api, tokens.ownerA, (q) =>
        q('SELECT id FROM stores WHERE id = ANY ($1)', [[ids.a.store_id, ids.b.store_id]]),
      );
      expect(seen.map((row: { id: string }) => row.id).sort()).toEqual([ids.a.store_id, ids.b.store_id].sort());
      const orders = await asRequest(api, tokens.customer, (q) =>
        q('SELECT id FROM orders WHERE id = $1', [ids.b.order_id]),
      );
      expect(orders).toHaveLength(1);
    },
  );

  it('the same login is refused at start-up without UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS', async () => {
    await expect(
      startApp({ DATABASE_REQUEST_URL: api.settings.get(databaseConfig).requestDatabaseUrl }),
    ).rejects.toThrow(
      new RegExp(
        'DATABASE_REQUEST_URL logs in as storefront_test_bypass, which may do more than requests need ' +
          '\\(superuser, BYPASSRLS',
      ),
    );
  });

  it('covers every store-scoped route of /docs-json, and only those', () => {
    const scoped: string[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        if (op.responses?.['404']?.description === "No such store, or another tenant's")
          scoped.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(scoped.sort()).toEqual(Object.keys(ROUTES).sort());
  });

  it.each([
    ["store A's owner", 'ownerA'],
    ['a member of store A (catalog, customers)', 'shop'],
    ['a member of store A (orders, webhooks, social, billing, ai)', 'back'],
    ['a customer of store A', 'customer'],
  ] as const)("%s: every route on store B's rows answers 404", async (_, who) => {
    expect(await mismatches(tokens[who], ids.b, () => 404)).toEqual([]);
  });

  /**
   * What a store key gets on any route, before the store guard: 403 where keys are refused (the owner's routes, the
   * refused ones).
   */
  const refusesKeys = (rule: Route) => rule.need === 'manage' || rule.storeKeys === false;

  it(
    'a store key of store A (every permission): 403 where keys ' +
      "are refused, else 404 on every route on store B's rows",
    async () => {
      expect(await mismatches(tokens.keyAll, ids.b, (_, rule) => (refusesKeys(rule) ? 403 : 404))).toEqual([]);
    },
  );

  it(
    'a store key of store A (catalog, customers): 403 where keys are ' +
      'refused or it lacks the permission, 200 on the reads it holds',
    async () => {
      const held = MEMBER_PERMISSIONS.shop;
      const wrong = await mismatches(tokens.keyShop, ids.a, (route, rule) => {
        if (refusesKeys(rule) || (rule.need !== 'read' && !held.includes(rule.need as Permission))) return 403;
        return route.startsWith('GET ') ? 200 : null;
      });
      expect(wrong).toEqual([]);
    },
  );

  it(
    "store B's owner: its own rows are reachable on every " + 'read route (the 404s above are not a broken route)',
    async () => {
      expect(await mismatches(tokens.ownerB, ids.b, (route) => (route.startsWith('GET ') ? 200 : null))).toEqual([]);
    },
  );

  it.each(['shop', 'back'] as const)(
    'a member of store A (%s): 403 on every route needing a ' +
      'permission it lacks or the owner, 200 on the reads it holds',
    async (who) => {
      const held = MEMBER_PERMISSIONS[who];
      const wrong = await mismatches(tokens[who], ids.a, (route, rule) => {
        if (rule.need === 'manage' || (rule.need !== 'read' && !held.includes(rule.need))) return 403;
        return route.startsWith('GET ') ? 200 : null;
      });
      expect(wrong).toEqual([]);
    },
  );

  it(
    "a customer of store A: another customer's order or " + 'customer record, and any staff record, answer 404',
    async () => {
      const wrong = await mismatches(tokens.customer, ids.a, (_, rule) =>
        rule.record && rule.record !== 'product' ? 404 : null,
      );
      expect(wrong).toEqual([]);
    },
  );

  it('a customer of store A: every staff-only route of its store answers 403', async () => {
    const wrong = await mismatches(tokens.customer, ids.a, (_, rule) => {
      if (rule.record && rule.record !== 'product') return null;
      return rule.need !== 'read' || rule.customers === false ? 403 : null;
    });
    expect(wrong).toEqual([]);
  });

  it('a customer of store A reaches its own order and customer record, its store and its products', async () => {
    const mine = { ...ids.a, ...own };
    const wrong = await mismatches(tokens.customer, mine, (route, rule) =>
      route.startsWith('GET ') && (rule.need === 'read' || rule.record === 'order' || rule.record === 'customer')
        ? 200
        : null,
    );
    expect(wrong).toEqual([]);
    // Its own order, as itself: the customer may cancel it, but not pay it.
    const paid = await api.request('PATCH', `/functions/v1/orders/${own.order_id}`, {
      token: tokens.customer,
      body: { status: 'paid' },
    });
    expect(paid.status).toBe(403);
  });

  it("nothing of store B changed under the calls of store A's people", async () => {
    const [store] = await system.query('SELECT name FROM stores WHERE id = $1', [ids.b.store_id]);
    expect(store.name).toBe('Walls B');
    const counts = await system.query(
      `SELECT (SELECT count(*)::int FROM products WHERE store_id = $1) AS products,
              (SELECT count(*)::int FROM webhooks WHERE store_id = $1) AS webhooks,
              (SELECT count(*)::int FROM social_accounts WHERE store_id = $1) AS accounts,
              (SELECT status FROM social_posts WHERE id = $2) AS post,
              (SELECT status FROM orders WHERE id = $3) AS order_status`,
      [ids.b.store_id, ids.b.post_id, ids.b.order_id],
    );
    expect(counts[0]).toEqual({ products: 1, webhooks: 1, accounts: 1, post: 'scheduled', order_status: 'pending' });
  });
});
