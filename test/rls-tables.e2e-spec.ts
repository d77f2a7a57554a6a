import type { DataSource } from 'typeorm';
import { merchantWithStore, signUp, startApp, uniqueEmail, type TestApp } from './support/app.js';
import { asRequest, SYSTEM_DATA_SOURCE, type Query } from './support/database.js';
import { connectSandbox } from './support/social.js';

/**
 * Row-level security as a wall of its own, table by table: statements with no tenant filter, in
 * transactions opened exactly as a request's (request login, bound to the session), with no guard in
 * the way. What each caller should see follows the grants and policies of each lib's sql/ files
 * (libs/<lib>/src/sql/), written down here as the rows the system connection finds for it.
 */
type Caller = 'ownerA' | 'none' | 'all' | 'customer';

interface Seeded {
  storeA: string;
  storeB: string;
  users: Record<Caller | 'ownerB', string>;
  orderB: string;
  webhookB: string;
  deliveryB: string;
  postB: string;
  webhookA: string;
  postA: string;
  orderA: string;
}

interface TableCase {
  table: string;
  /** What identifies a row (compared as text). */
  key: string;
  /** The rows that are "store B's" (`:b` is store B, `:ub` its owner). */
  ofB: string;
  /**
   * The rows each caller sees through an unfiltered SELECT, as a condition for the system connection
   * (`:a` is store A, `:u` the caller's user id); null: SELECT is not granted at all.
   */
  sees: Record<Caller, string> | null;
  /** A change to every row of `ofB` (a granted column); null: UPDATE is not granted. */
  update: string | null;
  deletable: boolean;
  /** A new row for store B, complete but for what a policy refuses; the error expected. */
  insert: (s: Seeded) => string;
  insertRefusal: RegExp;
}

const RLS_REFUSAL = /new row violates row-level security policy/;
const NOT_GRANTED = /permission denied/;

/** Holding a permission: the owner and the member with every permission see all of store A's rows, the others none. */
const holding = (a = 'store_id = :a'): Record<Caller, string> => ({
  ownerA: a,
  all: a,
  none: 'false',
  customer: 'false',
});
const OWN_ORDERS = 'customer_id IN (SELECT id FROM customers WHERE user_id = :u)';

const TABLES: TableCase[] = [
  {
    table: 'stores',
    key: 'id',
    ofB: 'id = :b',
    sees: { ownerA: 'id = :a', all: 'id = :a', none: 'id = :a', customer: 'id = :a' },
    update: `name = 'hijacked'`,
    deletable: true,
    insert: (s) => `INSERT INTO stores (owner_id, name) VALUES ('${s.users.ownerB}', 'forged')`,
    insertRefusal: RLS_REFUSAL,
  },
  {
    table: 'store_members',
    key: 'id',
    ofB: 'store_id = :b',
    sees: { ownerA: 'store_id = :a', all: 'user_id = :u', none: 'user_id = :u', customer: 'false' },
    update: `permissions = '{catalog,orders,customers,ai,social,webhooks,billing}'`,
    deletable: true,
    insert: (s) =>
      `INSERT INTO store_members (store_id, email, permissions) ` +
      `VALUES ('${s.storeB}', 'forged@example.com', '{catalog}')`,
    insertRefusal: RLS_REFUSAL,
  },
  {
    table: 'products',
    key: 'id',
    ofB: 'store_id = :b',
    sees: {
      ...holding(),
      none: `store_id = :a AND status = 'active'`,
      customer: `store_id = :a AND status = 'active'`,
    },
    update: `name = 'hijacked'`,
    deletable: true,
    insert: (s) => `INSERT INTO products (store_id, name, price, status) VALUES ('${s.storeB}', 'forged', 1, 'active')`,
    insertRefusal: RLS_REFUSAL,
  },
  {
    table: 'customers',
    key: 'id',
    ofB: 'store_id = :b',
    sees: { ...holding(), customer: 'user_id = :u' },
    update: `name = 'hijacked'`,
    deletable: false,
    insert: (s) =>
      `INSERT INTO customers (store_id, name, email) VALUES ('${s.storeB}', 'forged', 'forged@example.com')`,
    insertRefusal: RLS_REFUSAL,
  },
  {
    table: 'orders',
    key: 'id',
    ofB: 'store_id = :b',
    sees: { ...holding(), customer: OWN_ORDERS },
    update: `status = 'cancelled'`,
    deletable: false,
    insert: (s) =>
      `INSERT INTO orders (store_id, order_number, currency, total, ` +
      `status) VALUES ('${s.storeB}', 'F-1', 'USD', 0, 'pending')`,
    insertRefusal: RLS_REFUSAL,
  },
  {
    table: 'order_items',
    key: 'id',
    ofB: 'store_id = :b',
    sees: { ...holding(), customer: `order_id IN (SELECT id FROM orders WHERE ${OWN_ORDERS})` },
    update: null,
    deletable: false,
    insert: (s) =>
      `INSERT INTO order_items (order_id, store_id, position, name, quantity, ` +
      `price) VALUES ('${s.orderB}', '${s.storeB}', 9, 'forged', 1, 0)`,
    insertRefusal: RLS_REFUSAL,
  },
  {
    table: 'webhooks',
    key: 'id',
    ofB: 'store_id = :b',
    sees: holding(),
    update: `url = 'https://attacker.example/hook'`,
    deletable: true,
    insert: (s) =>
      `INSERT INTO webhooks (store_id, url, events, secret_sealed, secret_hint) VALUES ` +
      `('${s.storeB}', 'https://attacker.example/hook', '{order.created}', 's', 'h')`,
    insertRefusal: RLS_REFUSAL,
  },
  {
    table: 'webhook_deliveries',
    key: 'id',
    ofB: 'store_id = :b',
    sees: holding(),
    update: `status = 'cancelled'`,
    deletable: false,
    insert: (s) =>
      `INSERT INTO webhook_deliveries (webhook_id, store_id, event_id, event, body) ` +
      `VALUES ('${s.webhookB}', '${s.storeB}', gen_random_uuid(), 'order.created', '{}')`,
    insertRefusal: RLS_REFUSAL,
  },
  {
    table: 'webhook_attempts',
    key: 'id',
    ofB: 'store_id = :b',
    sees: holding(),
    update: null,
    deletable: false,
    insert: (s) =>
      `INSERT INTO webhook_attempts (delivery_id, store_id, attempt, started_at, ` +
      `duration_ms) VALUES ('${s.deliveryB}', '${s.storeB}', 99, now(), 1)`,
    insertRefusal: NOT_GRANTED,
  },
  {
    table: 'merchant_notifications',
    key: 'id',
    ofB: 'store_id = :b',
    sees: holding(),
    update: null,
    deletable: false,
    insert: (s) =>
      `INSERT INTO merchant_notifications (store_id, kind, message) VALUES ('${s.storeB}', 'forged', 'forged')`,
    insertRefusal: NOT_GRANTED,
  },
  {
    table: 'credit_accounts',
    key: 'store_id',
    ofB: 'store_id = :b',
    sees: holding(),
    update: null,
    deletable: false,
    insert: (s) => `INSERT INTO credit_accounts (store_id, balance) VALUES ('${s.storeB}', 1000000)`,
    insertRefusal: NOT_GRANTED,
  },
  {
    table: 'credit_ledger',
    key: 'id',
    ofB: 'store_id = :b',
    sees: holding(),
    update: null,
    deletable: false,
    insert: (s) => `INSERT INTO credit_ledger (store_id, kind, amount) VALUES ('${s.storeB}', 'grant', 1000000)`,
    insertRefusal: NOT_GRANTED,
  },
  {
    table: 'ai_images',
    key: 'id',
    ofB: 'store_id = :b',
    // Insert only: covers are served by id, through the system.
    sees: null,
    update: null,
    deletable: false,
    insert: (s) =>
      `INSERT INTO ai_images (store_id, content_type, width, height, ` +
      `bytes) VALUES ('${s.storeB}', 'image/png', 1, 1, '\\x00')`,
    insertRefusal: RLS_REFUSAL,
  },
  {
    table: 'social_accounts',
    key: 'id',
    ofB: 'store_id = :b',
    sees: holding(),
    update: `username = 'hijacked'`,
    deletable: true,
    insert: (s) =>
      `INSERT INTO social_accounts (store_id, platform, platform_account_id, username, ` +
      `access_token_sealed) VALUES ('${s.storeB}', 'threads', 'f', 'forged', 's')`,
    insertRefusal: RLS_REFUSAL,
  },
  {
    table: 'social_posts',
    key: 'id',
    ofB: 'store_id = :b',
    sees: holding(),
    update: `status = 'cancelled'`,
    deletable: false,
    insert: (s) =>
      `INSERT INTO social_posts (store_id, platforms, content, ` +
      `status) VALUES ('${s.storeB}', '{x}', '{}', 'scheduled')`,
    insertRefusal: RLS_REFUSAL,
  },
  {
    table: 'social_post_results',
    key: `post_id::text || ':' || platform`,
    ofB: 'store_id = :b',
    sees: holding(),
    update: `status = 'cancelled'`,
    deletable: false,
    insert: (s) =>
      `INSERT INTO social_post_results (post_id, store_id, platform, ` +
      `status) VALUES ('${s.postB}', '${s.storeB}', 'threads', 'pending')`,
    insertRefusal: RLS_REFUSAL,
  },
  {
    table: 'store_api_keys',
    key: 'id',
    ofB: 'store_id = :b',
    // The owners only: no member, whatever its permissions, sees a key.
    sees: { ownerA: 'store_id = :a', all: 'false', none: 'false', customer: 'false' },
    update: 'revoked_at = now()',
    deletable: false,
    insert: (s) =>
      `INSERT INTO store_api_keys (store_id, name, prefix, secret_hash, permissions, created_by)
       VALUES ('${s.storeB}', 'forged', 'sk_forged', sha256('forged'::bytea), '{catalog}', '${s.users.ownerB}')`,
    insertRefusal: RLS_REFUSAL,
  },
  {
    table: 'idempotency_keys',
    key: `user_id::text || ':' || key`,
    // Per user, not per store: "B's" are B's owner's.
    ofB: 'user_id = :ub',
    sees: { ownerA: 'user_id = :u', all: 'user_id = :u', none: 'user_id = :u', customer: 'user_id = :u' },
    update: `state = 'done'`,
    deletable: true,
    insert: (s) => `INSERT INTO idempotency_keys (caller, user_id, key, route, fingerprint)
       VALUES ('user:${s.users.ownerB}', '${s.users.ownerB}', 'forged', 'r', 'f')`,
    insertRefusal: RLS_REFUSAL,
  },
];

describe('row-level security, table by table (no guard in the way)', () => {
  let api: TestApp;
  let system: DataSource;
  const tokens = {} as Record<Caller | 'ownerB', string>;
  const s = { users: {} } as Seeded;

  /** A condition with its placeholders filled (ids from this database only). */
  const fill = (condition: string, user = '') =>
    condition
      .replace(/:ub\b/g, `'${s.users.ownerB}'`)
      .replace(/:a\b/g, `'${s.storeA}'`)
      .replace(/:b\b/g, `'${s.storeB}'`)
      .replace(/:u\b/g, `'${user}'`);
  const keysWhere = async (t: TableCase, condition: string, user = ''): Promise<string[]> =>
    (await system.query(`SELECT ${t.key} AS k FROM ${t.table} WHERE ${fill(condition, user)} ORDER BY 1`)).map(
      (r: { k: string }) => r.k,
    );
  /** Rows as the system sees them: how many, and a digest of their content. */
  const snapshot = async (t: TableCase, of: string) =>
    (
      await system.query(
        `SELECT count(*)::int AS n, md5(coalesce(string_agg(r::text, '|' ` +
          `ORDER BY r::text), '')) AS digest FROM ${t.table} r WHERE ${fill(of)}`,
      )
    )[0] as { n: number; digest: string };
  const as = <T>(who: Caller, work: (q: Query) => Promise<T>) => asRequest(api, tokens[who], work);

  beforeAll(async () => {
    api = await startApp({
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}rls-tables:`,
    });
    system = api.app.get<DataSource>(SYSTEM_DATA_SOURCE);
    const call = async (token: string, method: string, path: string, body?: unknown) => {
      const result = await api.request(method, `/functions/v1${path}`, {
        token,
        body,
        headers: { 'idempotency-key': uniqueEmail('key') },
      });
      if (result.status >= 300) throw new Error(`${method} ${path}: ${result.status} ${JSON.stringify(result.body)}`);
      return result.body;
    };
    // The same rows in both stores, through the API where it makes them, else as the workers would.
    for (const key of ['A', 'B'] as const) {
      const { token, storeId, session } = await merchantWithStore(api, `Table tenant ${key}`);
      tokens[key === 'A' ? 'ownerA' : 'ownerB'] = token;
      s.users[key === 'A' ? 'ownerA' : 'ownerB'] = session.user.id;
      const active = await call(token, 'POST', `/stores/${storeId}/products`, {
        name: 'Mug',
        price: 10,
        inventory_quantity: 100,
        status: 'active',
      });
      await call(token, 'POST', `/stores/${storeId}/products`, { name: 'Draft', price: 5, status: 'draft' });
      const customer = await call(token, 'POST', `/stores/${storeId}/customers`, {
        name: 'Walk-in',
        email: uniqueEmail('walk-in'),
      });
      const order = await call(token, 'POST', `/stores/${storeId}/orders`, {
        customer_id: customer.customer.id,
        items: [{ product_id: active.product.id, quantity: 2 }],
      });
      const webhook = await call(token, 'POST', '/webhooks/register', {
        store_id: storeId,
        url: 'http://127.0.0.1:9/hook',
        events: ['order.created'],
      });
      const [delivery] = await system.query(
        `INSERT INTO webhook_deliveries (webhook_id, store_id, event_id, event, body, status, next_attempt_at)
         VALUES ($1, $2, gen_random_uuid(), 'order.created', '{}', 'failed', NULL) RETURNING id`,
        [webhook.webhook.id, storeId],
      );
      await system.query(
        `INSERT INTO webhook_attempts (delivery_id, store_id, attempt, ` +
          `started_at, duration_ms, error) VALUES ($1, $2, 1, now(), 5, 'refused')`,
        [delivery.id, storeId],
      );
      await system.query(
        `INSERT INTO merchant_notifications (store_id, kind, message) VALUES ($1, 'webhook_disabled', 'Seeded')`,
        [storeId],
      );
      await system.query(
        `INSERT INTO ai_images (store_id, content_type, width, height, bytes) VALUES ($1, 'image/png', 1, 1, '\\x00')`,
        [storeId],
      );
      await system.query(
        `INSERT INTO idempotency_keys (caller, user_id, key, route, fingerprint)
         VALUES ($2, $1, 'seeded', 'POST /x', 'f')`,
        [session.user.id, `user:${session.user.id}`],
      );
      await connectSandbox(api, token, storeId, 'x');
      const post = await call(token, 'POST', '/social-publish', {
        store_id: storeId,
        platforms: ['x'],
        content: { text: 'Tomorrow' },
        schedule_at: new Date(Date.now() + 86_400_000).toISOString(),
      });
      await call(token, 'POST', `/stores/${storeId}/members`, {
        email: uniqueEmail('invited'),
        permissions: ['catalog'],
      });
      await call(token, 'POST', `/stores/${storeId}/api-keys`, { name: 'Seeded', permissions: ['catalog'] });
      if (key === 'A')
        Object.assign(s, {
          storeA: storeId,
          webhookA: webhook.webhook.id,
          postA: post.results[0].post_id,
          orderA: order.order.id,
        });
      else
        Object.assign(s, {
          storeB: storeId,
          webhookB: webhook.webhook.id,
          deliveryB: delivery.id,
          postB: post.results[0].post_id,
          orderB: order.order.id,
        });
    }
    // Store A's people: a member with no permission, one with every permission, and a customer with an order.
    for (const [who, permissions] of [
      ['none', []],
      ['all', ['catalog', 'orders', 'customers', 'ai', 'social', 'webhooks', 'billing']],
    ] as const) {
      const email = uniqueEmail(`member-${who}`);
      const invite = await call(tokens.ownerA, 'POST', `/stores/${s.storeA}/members`, { email, permissions });
      const session = await signUp(api, { invite_token: invite.invite_token }, email);
      tokens[who] = session.access_token;
      s.users[who] = session.user.id;
    }
    const customer = await signUp(api, { role: 'customer', store_id: s.storeA });
    tokens.customer = customer.access_token;
    s.users.customer = customer.user.id;
    const productA = (
      await system.query(`SELECT id FROM products WHERE store_id = $1 AND status = 'active'`, [s.storeA])
    )[0].id;
    await call(customer.access_token, 'POST', `/stores/${s.storeA}/orders`, {
      items: [{ product_id: productA, quantity: 1 }],
    });
  });
  afterAll(() => api?.close());

  it('both stores have rows in every table checked, so every "sees none" below could have seen some', async () => {
    for (const t of TABLES) {
      expect((await keysWhere(t, t.ofB)).length, `${t.table} of B`).toBeGreaterThan(0);
      expect(
        (
          await keysWhere(
            t,
            t.table === 'idempotency_keys'
              ? `user_id = '${s.users.ownerA}'`
              : t.table === 'stores'
                ? 'id = :a'
                : 'store_id = :a',
          )
        ).length,
        `${t.table} of A`,
      ).toBeGreaterThan(0);
    }
  });

  describe(
    'a row of one store cannot point at a row of another ' + '(foreign keys are checked without row-level security)',
    () => {
      const refused = async (who: Caller, sql: string, params: unknown[]) => {
        await expect(as(who, (q) => q(sql, params))).rejects.toThrow(RLS_REFUSAL);
      };

      it("a customer of store A cannot place an order in store B, nor add an item of B's to its order", async () => {
        const [mine] = await system.query(
          `SELECT o.id, o.store_id, o.customer_id FROM orders o JOIN ` +
            `customers c ON c.id = o.customer_id WHERE c.user_id = $1`,
          [s.users.customer],
        );
        await refused(
          'customer',
          `INSERT INTO orders (store_id, order_number, customer_id, currency, ` +
            `total, status) VALUES ($1, 'F-2', $2, 'USD', 0, 'pending')`,
          [s.storeB, mine.customer_id],
        );
        await refused(
          'customer',
          `INSERT INTO order_items (order_id, store_id, position, ` +
            `name, quantity, price) VALUES ($1, $2, 9, 'forged', 1, 0)`,
          [mine.id, s.storeB],
        );
        expect(
          await system.query(`SELECT 1 FROM orders WHERE store_id = $1 AND order_number = 'F-2'`, [s.storeB]),
        ).toEqual([]);
      });

      it("store A's staff cannot file rows of A under B's order, webhook, post or customer", async () => {
        const [customerB] = await system.query(`SELECT id FROM customers WHERE store_id = $1 LIMIT 1`, [s.storeB]);
        // An order of A for B's customer would show in that customer's orders.
        await refused(
          'ownerA',
          `INSERT INTO orders (store_id, order_number, customer_id, currency, ` +
            `total, status) VALUES ($1, 'F-3', $2, 'USD', 0, 'pending')`,
          [s.storeA, customerB.id],
        );
        await refused(
          'ownerA',
          `INSERT INTO order_items (order_id, store_id, position, ` +
            `name, quantity, price) VALUES ($1, $2, 9, 'forged', 1, 0)`,
          [s.orderB, s.storeA],
        );
        // The delivery worker sends a delivery to its webhook's URL, signed with that webhook's secret.
        await refused(
          'ownerA',
          `INSERT INTO webhook_deliveries (webhook_id, store_id, event_id, event, ` +
            `body) VALUES ($1, $2, gen_random_uuid(), 'order.created', '{"forged":true}')`,
          [s.webhookB, s.storeA],
        );
        await refused(
          'ownerA',
          `INSERT INTO social_post_results (post_id, store_id, platform, status) VALUES ($1, $2, 'threads', 'pending')`,
          [s.postB, s.storeA],
        );
        const forged = await system.query(
          `SELECT 'delivery' FROM webhook_deliveries WHERE webhook_id = $1 AND store_id = $2
         UNION ALL SELECT 'result' FROM social_post_results WHERE post_id = $3 AND store_id = $2
         UNION ALL SELECT 'item' FROM order_items WHERE order_id = $4 AND store_id = $2`,
          [s.webhookB, s.storeA, s.postB, s.orderB],
        );
        expect(forged).toEqual([]);
      });

      it(
        'the same statements within one store are allowed ' + '(the refusals above are about the other store)',
        async () => {
          const [customerA] = await system.query(
            `SELECT id FROM customers WHERE store_id = $1 AND user_id IS NULL LIMIT 1`,
            [s.storeA],
          );
          const orderId = await as('ownerA', async (q) => {
            const [order] = await q(
              `INSERT INTO orders (store_id, order_number, customer_id, currency, ` +
                `total, status) VALUES ($1, 'F-4', $2, 'USD', 0, 'pending') RETURNING id`,
              [s.storeA, customerA.id],
            );
            await q(
              `INSERT INTO order_items (order_id, store_id, position, ` +
                `name, quantity, price) VALUES ($1, $2, 1, 'ok', 1, 0)`,
              [order.id, s.storeA],
            );
            await q(
              `INSERT INTO webhook_deliveries (webhook_id, store_id, event_id, event, body, status, ` +
                `next_attempt_at) VALUES ($1, $2, gen_random_uuid(), 'order.created', '{}', 'cancelled', NULL)`,
              [s.webhookA, s.storeA],
            );
            await q(
              `INSERT INTO social_post_results (post_id, store_id, ` +
                `platform, status) VALUES ($1, $2, 'threads', 'cancelled')`,
              [s.postA, s.storeA],
            );
            await q('SELECT * FROM app_take_order_stock($1)', [order.id]);
            return order.id as string;
          });
          // The order is there, numbered by the database (the number a request names is not used).
          const [stored] = await system.query(`SELECT order_number FROM orders WHERE id = $1 AND store_id = $2`, [
            orderId,
            s.storeA,
          ]);
          expect(stored.order_number).toMatch(/^\d{4,}$/);
        },
      );
    },
  );

  describe.each(TABLES.map((t) => [t.table, t] as const))('%s', (_, t) => {
    it.each(['ownerA', 'none', 'all', 'customer'] as const)(
      'an unfiltered SELECT by %s sees exactly the rows its policies give it',
      async (who) => {
        const select = (q: Query) => q(`SELECT ${t.key} AS k FROM ${t.table} ORDER BY 1`);
        if (!t.sees) {
          await expect(as(who, select)).rejects.toThrow(NOT_GRANTED);
          return;
        }
        const seen = (await as(who, select)).map((r: { k: string }) => r.k);
        const expected = await keysWhere(t, t.sees[who], s.users[who]);
        expect(seen).toEqual(expected);
        // Never a row of store B, whoever asks.
        const ofB = new Set(await keysWhere(t, t.ofB));
        expect(seen.filter((k: string) => ofB.has(k))).toEqual([]);
      },
    );

    it("store A's owner changes nothing of B's rows: UPDATE and DELETE reach none, INSERT is refused", async () => {
      const before = await snapshot(t, t.ofB);
      const where = fill(t.ofB);
      if (t.update) {
        const [changed] = await as('ownerA', (q) =>
          q(
            `WITH c AS (UPDATE ${t.table} SET ${t.update} WHERE ${where} RETURNING 1) SELECT count(*)::int AS n FROM c`,
          ),
        );
        expect(changed.n).toBe(0);
      } else {
        await expect(
          as('ownerA', (q) =>
            q(`UPDATE ${t.table} SET ${t.key === 'id' ? 'id = id' : 'store_id = store_id'} WHERE ${where}`),
          ),
        ).rejects.toThrow(NOT_GRANTED);
      }
      if (t.deletable) {
        const [deleted] = await as('ownerA', (q) =>
          q(`WITH c AS (DELETE FROM ${t.table} WHERE ${where} RETURNING 1) SELECT count(*)::int AS n FROM c`),
        );
        expect(deleted.n).toBe(0);
      } else {
        await expect(as('ownerA', (q) => q(`DELETE FROM ${t.table} WHERE ${where}`))).rejects.toThrow(NOT_GRANTED);
      }
      await expect(as('ownerA', (q) => q(t.insert(s)))).rejects.toThrow(t.insertRefusal);
      expect(await snapshot(t, t.ofB)).toEqual(before);
    });

    it.skipIf(t.table === 'idempotency_keys' || (!t.update && !t.deletable))(
      "a member of store A without the table's permission changes none of A's rows",
      async () => {
        const ofA = t.ofB.replace(':b', ':a');
        const before = await snapshot(t, ofA);
        expect(before.n).toBeGreaterThan(0);
        const where = fill(ofA);
        if (t.update) {
          const [changed] = await as('none', (q) =>
            q(
              `WITH c AS (UPDATE ${t.table} SET ${t.update} WHERE ${where} ` +
                `RETURNING 1) SELECT count(*)::int AS n FROM c`,
            ),
          );
          expect(changed.n).toBe(0);
        }
        if (t.deletable) {
          const [deleted] = await as('none', (q) =>
            q(`WITH c AS (DELETE FROM ${t.table} WHERE ${where} RETURNING 1) SELECT count(*)::int AS n FROM c`),
          );
          expect(deleted.n).toBe(0);
        }
        expect(await snapshot(t, ofA)).toEqual(before);
      },
    );
  });
});
