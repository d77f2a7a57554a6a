import { createHash } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { requestBinding, type Merchant } from '../lib/app.js';
import { call } from '../lib/http.js';
import { PRODUCT_PAGE_SQL } from '../lib/sql.js';

/**
 * Cost as data grows: one store grown in steps (10^3 → 10^5 → 10^6 orders by default), measured at
 * each size through the real API with the merchant's JWT.
 *
 * At a size N the store holds N orders (1 to 3 items each), min(N, 10^5) products, min(N, 10^5)
 * customers, and N delivery attempts (N/2 deliveries of one webhook, two attempts each). The rows are
 * generated in SQL through the start-up (superuser) login, with triggers off for the seeding
 * transaction (`session_replication_role = replica`): the triggers would number orders one row at a
 * time through one counter row, which is quadratic in one transaction. The seed writes what they would
 * have: orders numbered 1001, 1002… (and the store's counter after them), items named and priced as
 * their product, totals equal to their items, stock taken. `consistent` checks that at the end. Orders
 * are not given outbox events (nothing here reads them).
 *
 * Order statuses: 0.2 % refunded (the filtered list's status: at 10^3 orders its page is the 2 there
 * are, from then on 21 of them), 6 % cancelled, 6 % pending, 10 % paid, 10 % shipped, the rest delivered.
 *
 * Each measured route: a few warm-up requests, then `requests` sequential ones, the routes taking
 * turns; p50 and p99 in ms. `store by id (reference)` does the same work at every size: how much its
 * figures move between sizes is how much the machine's other work moved the others'.
 * At the largest size, the statements behind each route are run under EXPLAIN (ANALYZE, BUFFERS) as
 * the request role, bound to the merchant's session as a request is.
 */

export interface GrowthSettings {
  sizes: number[];
  requests: number;
  warmup: number;
}

export interface Latency {
  p50: number;
  p99: number;
  requests: number;
}

export const GROWTH_QUERIES = [
  'products: first page',
  'products: deep page',
  'order by id',
  'orders by status',
  'customer search',
  'delivery log',
  'store by id (reference)',
] as const;
export type GrowthQuery = (typeof GROWTH_QUERIES)[number];

export interface GrowthStep {
  size: number;
  rows: Record<'products' | 'customers' | 'orders' | 'order_items' | 'deliveries' | 'attempts', number>;
  /** Disk used by the tables and their indexes at this size, in MiB. */
  disk_mib: Record<string, number>;
  seed_s: number;
  latency: Record<GrowthQuery, Latency>;
  /**
   * Per route, the median time its statements took in the database (EXPLAIN ANALYZE), in ms: the cost the data size
   * adds, with less of the HTTP path's noise.
   */
  database_ms: Record<GrowthQuery, number>;
  /** The machine's 1-minute load average after the measurements: other work on the cores shows here. */
  load_avg: number;
}

export interface GrowthResults {
  steps: GrowthStep[];
  /** p50 at the largest size over p50 at the smallest, per route; the target is at most 2. */
  p50_ratio: Record<GrowthQuery, number>;
  /**
   * Orders total their items, items carry their product's name and price, numbers are unique: what the triggers would
   * have made.
   */
  consistent: boolean;
  /** EXPLAIN (ANALYZE, BUFFERS) at the largest size, statement by statement, per route (the last of 5 runs). */
  plans: Record<GrowthQuery, string[]>;
}

const PRODUCTS_MAX = 100_000;
const CUSTOMERS_MAX = 100_000;
const ORDER_STATUS_FILTER = 'refunded';
const FIRST_NAMES = ['ada', 'alan', 'barbara', 'claude', 'dennis', 'edsger', 'frances', 'grace', 'hedy', 'ivan'];
const LAST_NAMES = [
  'lovelace',
  'turing',
  'liskov',
  'shannon',
  'ritchie',
  'dijkstra',
  'allen',
  'hopper',
  'lamarr',
  'sutherland',
  'knuth',
];

/**
 * The seed's ids: the MD5 of a name, as a version-4 UUID (the API refuses other versions). The seed
 * makes them in SQL (`pg_temp.seed_uuid`), so the bench can name any row without reading it.
 */
function md5Uuid(text: string): string {
  const hex = createHash('md5').update(text).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20)}`;
}
const SEED_UUID_FUNCTION = `CREATE FUNCTION pg_temp.seed_uuid(name text) RETURNS uuid LANGUAGE sql IMMUTABLE AS $$
  SELECT overlay(overlay(md5(name) PLACING '4' FROM 13) PLACING '8' FROM 17)::uuid
$$`;

/** The e-mail's local part of customer `k`, as the seed writes it. */
function customerHandle(k: number): string {
  const last = LAST_NAMES[Math.floor(k / FIRST_NAMES.length) % LAST_NAMES.length];
  return `${FIRST_NAMES[k % FIRST_NAMES.length]}.${last}.${k}`;
}

const counts = (size: number) => ({
  products: Math.min(size, PRODUCTS_MAX),
  customers: Math.min(size, CUSTOMERS_MAX),
  orders: size,
  deliveries: Math.floor(size / 2),
});
type Counts = ReturnType<typeof counts>;

const random = (max: number) => 1 + Math.floor(Math.random() * max);

/** Adds the rows between `from` and `to` in one transaction, triggers off, then vacuums and analyses. */
async function grow(
  databaseUrl: string,
  store: { id: string; userId: string; currency: string; webhookId: string; base: Date },
  from: Counts,
  to: Counts,
): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const s = store.id;
  try {
    await client.query(`SET session_replication_role = replica`);
    await client.query(`SET work_mem = '256MB'`);
    await client.query(SEED_UUID_FUNCTION);
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO products (id, store_id, name, description, price, category, seo_keywords, status, inventory_quantity,
        created_at, updated_at)
       SELECT pg_temp.seed_uuid($1 || ':p:' || g), $1::uuid, 'Product ' || g,
         'A product of the growing catalog, number ' || g || '.',
              (5 + g % 200) + 0.99, (ARRAY['home', 'apparel', 'garden', 'toys', 'books'])[1 + g % 5], ARRAY['growth',
                'item-' || g],
              CASE WHEN g % 10 = 0 THEN 'draft' ELSE 'active' END, 1000000,
              $4::timestamptz + g * interval '5 minutes', $4::timestamptz + g * interval '5 minutes'
         FROM generate_series($2::int, $3::int) g`,
      [s, from.products + 1, to.products, store.base],
    );
    await client.query(
      `INSERT INTO customers (id, store_id, name, email, created_at, updated_at)
       SELECT pg_temp.seed_uuid($1 || ':c:' || k), $1::uuid,
              initcap(($5::text[])[1 + k % cardinality($5)]) || ' ' ||
                initcap(($6::text[])[1 + (k / cardinality($5)) % cardinality($6)]),
              ($5::text[])[1 + k % cardinality($5)] || '.' || ($6::text[])[1 + (k / cardinality($5)) % cardinality($6)]
                || '.' || k || '@example.com',
              $4::timestamptz + k * interval '5 minutes', $4::timestamptz + k * interval '5 minutes'
         FROM generate_series($2::int, $3::int) k`,
      [s, from.customers + 1, to.customers, store.base, FIRST_NAMES, LAST_NAMES],
    );
    // 1 to 3 items per order, each priced and named as its product (what order_items_price does).
    await client.query(
      `CREATE TEMP TABLE growth_items ON COMMIT DROP AS
       SELECT n, i AS position, p.id AS product_id, p.name, 1 + (n + i) % 3 AS quantity, p.price
         FROM generate_series($2::int, $3::int) n
        CROSS JOIN LATERAL generate_series(1, 1 + n % 3) i
         JOIN products p ON p.id = pg_temp.seed_uuid($1 || ':p:' || (1 + (n::bigint * 31 + i * 7919) % $4::int))`,
      [s, from.orders + 1, to.orders, to.products],
    );
    await client.query(
      `INSERT INTO orders (id, store_id, order_number, customer_id, status, currency, total, placed_by, created_at,
        updated_at,
                           stock_taken, stock_returned)
       SELECT pg_temp.seed_uuid($1 || ':o:' || t.n), $1::uuid, (1000 + t.n)::text,
         pg_temp.seed_uuid($1 || ':c:' || (1 + (t.n::bigint * 7919) % $2::int)),
              st.status, $3, t.total, $4::uuid, $5::timestamptz + t.n * interval '30 seconds',
                $5::timestamptz + t.n * interval '30 seconds',
              true, st.status = 'cancelled'
         FROM (SELECT n, sum(quantity * price) AS total FROM growth_items GROUP BY n) t
        CROSS JOIN LATERAL (SELECT CASE WHEN t.n % 500 = 0 THEN 'refunded' WHEN t.n % 50 < 4 THEN 'cancelled'
                                        WHEN t.n % 50 < 7 THEN 'pending' WHEN t.n % 50 < 12 THEN 'paid'
                                        WHEN t.n % 50 < 17 THEN 'shipped' ELSE 'delivered' END AS status) st
        ORDER BY t.n`,
      [s, to.customers, store.currency, store.userId, store.base],
    );
    await client.query(
      `INSERT INTO order_items (order_id, store_id, product_id, position, name, quantity, price)
       SELECT pg_temp.seed_uuid($1 || ':o:' || n), $1::uuid, product_id, position, name, quantity, price
         FROM growth_items ORDER BY n, position`,
      [s],
    );
    // What orders_number leaves behind: the store's last number.
    await client.query(
      `INSERT INTO store_order_counters (store_id, last_number) VALUES ($1, 1000 + $2::bigint)
       ON CONFLICT (store_id) DO UPDATE SET last_number = EXCLUDED.last_number`,
      [s, to.orders],
    );
    // Each delivery: a failed first attempt (500), a second a minute later that succeeded.
    await client.query(
      `INSERT INTO webhook_deliveries (id, webhook_id, store_id, event_id, event, body, status, attempt_count,
        next_attempt_at,
                                       last_status_code, created_at, updated_at)
       SELECT pg_temp.seed_uuid($1 || ':d:' || d), $4::uuid, $1::uuid, pg_temp.seed_uuid($1 || ':e:' || d),
         'order.updated',
              json_build_object('id', pg_temp.seed_uuid($1 || ':e:' || d), 'event', 'order.updated', 'created_at', at,
                'store_id', $1,
                                'data', json_build_object('order_id', pg_temp.seed_uuid($1 || ':o:' || (2 * d)),
                                  'status', 'shipped',
                                                          'previous_status', 'paid'))::text,
              'succeeded', 2, NULL, 200, at, at + interval '60.2 seconds'
         FROM generate_series($2::int, $3::int) d
        CROSS JOIN LATERAL (SELECT $5::timestamptz + d * interval '60 seconds' AS at) t`,
      [s, from.deliveries + 1, to.deliveries, store.webhookId, store.base],
    );
    await client.query(
      `INSERT INTO webhook_attempts (delivery_id, store_id, attempt, started_at, duration_ms, status_code, error,
        response_excerpt,
                                     next_attempt_at)
       SELECT pg_temp.seed_uuid($1 || ':d:' || d), $1::uuid, a, at + (a - 1) * interval '60 seconds', 40 + d % 60,
              CASE a WHEN 1 THEN 500 ELSE 200 END, CASE a WHEN 1 THEN 'Receiver answered 500' END,
              CASE a WHEN 1 THEN 'Internal Server Error' ELSE 'ok' END, CASE a WHEN 1
                THEN at + interval '60 seconds' END
         FROM generate_series($2::int, $3::int) d
        CROSS JOIN generate_series(1, 2) a
        CROSS JOIN LATERAL (SELECT $4::timestamptz + d * interval '60 seconds' AS at) t
        ORDER BY d, a`,
      [s, from.deliveries + 1, to.deliveries, store.base],
    );
    await client.query('COMMIT');
    await client.query(`RESET session_replication_role`);
    // As a table that has been there a while: hint bits set, visibility map and statistics current.
    await client.query(
      `VACUUM (ANALYZE) products, customers, orders, order_items, ` +
        `store_order_counters, webhook_deliveries, webhook_attempts`,
    );
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}

async function consistent(db: pg.Pool, storeId: string): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT
       (SELECT count(*) FROM orders o
          LEFT JOIN (SELECT order_id, sum(price * quantity) AS total FROM order_items WHERE store_id = $1
            GROUP BY order_id) i
            ON i.order_id = o.id
         WHERE o.store_id = $1 AND (i.total IS NULL OR i.total <> o.total OR NOT o.stock_taken))::int AS bad_totals,
       (SELECT count(*) FROM order_items i JOIN products p ON p.id = i.product_id
         WHERE i.store_id = $1 AND (i.price <> p.price OR i.name <> p.name OR p.store_id <> i.store_id))::int
           AS bad_items,
       (SELECT count(*) - count(DISTINCT order_number) FROM orders WHERE store_id = $1)::int AS duplicate_numbers,
       (SELECT last_number FROM store_order_counters WHERE store_id = $1) =
         (SELECT max(order_number::bigint) FROM orders WHERE store_id = $1)
         AS counter_ok`,
    [storeId],
  );
  const row = rows[0];
  return row.bad_totals === 0 && row.bad_items === 0 && row.duplicate_numbers === 0 && row.counter_ok === true;
}

async function rowCounts(db: pg.Pool, storeId: string): Promise<GrowthStep['rows']> {
  const { rows } = await db.query(
    `SELECT (SELECT count(*) FROM products WHERE store_id = $1)::int AS products,
            (SELECT count(*) FROM customers WHERE store_id = $1)::int AS customers,
            (SELECT count(*) FROM orders WHERE store_id = $1)::int AS orders,
            (SELECT count(*) FROM order_items WHERE store_id = $1)::int AS order_items,
            (SELECT count(*) FROM webhook_deliveries WHERE store_id = $1)::int AS deliveries,
            (SELECT count(*) FROM webhook_attempts WHERE store_id = $1)::int AS attempts`,
    [storeId],
  );
  return rows[0];
}

async function diskUse(db: pg.Pool): Promise<Record<string, number>> {
  const { rows } = await db.query<{ name: string; mib: number }>(
    `SELECT relname AS name, round(pg_total_relation_size(oid) / 1048576.0)::int AS mib FROM pg_class
      WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace
        AND relname IN ('products', 'customers', 'orders', 'order_items', 'webhook_deliveries', 'webhook_attempts')
      ORDER BY relname`,
  );
  return Object.fromEntries(rows.map((row) => [row.name, row.mib]));
}

/**
 * `requests` sequential requests per route, taking turns (route 1, route 2, …, route 1, …) so that
 * other work on the machine weighs on every route alike; p50 and p99 of each route's latency.
 */
async function measureRoutes(
  url: string,
  token: string,
  paths: Record<GrowthQuery, () => string>,
  settings: GrowthSettings,
): Promise<Record<GrowthQuery, Latency>> {
  const once = async (path: string) => {
    const started = performance.now();
    const response = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    const text = await response.text();
    const elapsed = performance.now() - started;
    if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${text.slice(0, 300)}`);
    return elapsed;
  };
  const times = Object.fromEntries(GROWTH_QUERIES.map((name) => [name, [] as number[]])) as Record<
    GrowthQuery,
    number[]
  >;
  for (let round = 0; round < settings.warmup + settings.requests; round++) {
    for (const name of GROWTH_QUERIES) {
      const elapsed = await once(paths[name]());
      if (round >= settings.warmup) times[name].push(elapsed);
    }
  }
  const latency = {} as Record<GrowthQuery, Latency>;
  for (const name of GROWTH_QUERIES) {
    const sorted = times[name].sort((a, b) => a - b);
    const at = (share: number) => sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)];
    latency[name] = { p50: at(0.5), p99: at(0.99), requests: sorted.length };
  }
  return latency;
}

/** A product list cursor (the `next_cursor` format) at `depth` (0 newest … 1 oldest) of the store's catalog. */
async function productCursors(db: pg.Pool, storeId: string, total: number): Promise<string[]> {
  const cursors: string[] = [];
  for (const depth of [0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99]) {
    const { rows } = await db.query(
      `SELECT created_at, id FROM products WHERE store_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`,
      [storeId, Math.floor(depth * (total - 1))],
    );
    cursors.push(
      Buffer.from(JSON.stringify({ t: new Date(rows[0].created_at).toISOString(), i: rows[0].id })).toString(
        'base64url',
      ),
    );
  }
  return cursors;
}

/** SQL, its parameters, and `system` for a statement a definer function runs as the system role. */
type Statement = [string, unknown[]] | [string, unknown[], 'system'];

interface Routes {
  paths: Record<GrowthQuery, () => string>;
  /** The statements each route runs (as its repository writes them), with parameters for one request. */
  statements: Record<GrowthQuery, () => Promise<Statement[]>>;
}

function routes(db: pg.Pool, storeId: string, webhookId: string, size: Counts, cursors: string[]): Routes {
  const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)];
  const orderId = () => md5Uuid(`${storeId}:o:${random(size.orders)}`);
  const handle = () => customerHandle(random(size.customers));
  const decoded = (cursor: string) =>
    JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { t: string; i: string };
  const productsPage = (cursor: { t: string; i: string } | null): Statement => [
    PRODUCT_PAGE_SQL,
    [storeId, null, null, null, cursor?.t ?? null, cursor?.i ?? null, 21, false],
  ];
  const orderWithCustomer =
    `SELECT o.*, c.name AS customer_name, c.email AS customer_email ` +
    `FROM orders o LEFT JOIN customers c ON c.id = o.customer_id`;
  const itemsOf = (ids: string[]): Statement => [
    `SELECT order_id, product_id, position, name, quantity, price FROM order_items
      WHERE order_id = ANY ($1::uuid[]) ORDER BY order_id, position`,
    [ids],
  ];
  const ids = async (sql: string, params: unknown[]) =>
    (await db.query<{ id: string }>(sql, params)).rows.map((row) => row.id);
  return {
    paths: {
      'products: first page': () => `/functions/v1/stores/${storeId}/products`,
      'products: deep page': () => `/functions/v1/stores/${storeId}/products?cursor=${pick(cursors)}`,
      'order by id': () => `/functions/v1/orders/${orderId()}`,
      'orders by status': () => `/functions/v1/stores/${storeId}/orders?status=${ORDER_STATUS_FILTER}`,
      'customer search': () => `/functions/v1/stores/${storeId}/customers?q=${encodeURIComponent(handle())}`,
      'delivery log': () => `/functions/v1/webhooks/${webhookId}/deliveries`,
      'store by id (reference)': () => `/functions/v1/stores/${storeId}`,
    },
    statements: {
      // A route whose work does not grow with the store: the noise floor of each size's figures.
      'store by id (reference)': async () => [],
      'products: first page': async () => [productsPage(null)],
      'products: deep page': async () => [productsPage(decoded(cursors[cursors.length - 1]))],
      'order by id': async () => {
        const id = orderId();
        return [[`${orderWithCustomer} WHERE o.id = $1`, [id]], itemsOf([id])];
      },
      'orders by status': async () => [
        [
          `${orderWithCustomer}
            WHERE o.store_id = $1
              AND ($2::text IS NULL OR o.status = $2)
              AND ($3::timestamptz IS NULL OR (o.created_at, o.id) < ($3::timestamptz, $4::uuid))
            ORDER BY o.created_at DESC, o.id DESC
            LIMIT $5`,
          [storeId, ORDER_STATUS_FILTER, null, null, 21],
        ],
        itemsOf(
          await ids(
            `SELECT id FROM orders WHERE store_id = $1 AND status = $2 ORDER BY created_at DESC, id DESC LIMIT 20`,
            [storeId, ORDER_STATUS_FILTER],
          ),
        ),
      ],
      'customer search': async () => {
        const pattern = `%${handle()}%`;
        return [
          [
            `SELECT * FROM customers
              WHERE store_id = $1 AND id = ANY (ARRAY(SELECT app_search_customers($1, $2, $3, $4, $5)))
              ORDER BY created_at DESC, id DESC`,
            [storeId, pattern, null, null, 21],
          ],
          // The search inside app_search_customers, which runs as the system role.
          [
            `SELECT c.id FROM customers c
              WHERE c.store_id = $1 AND (c.name ILIKE $2 OR c.email ILIKE $2)
                AND ($3::timestamptz IS NULL OR (c.created_at, c.id) < ($3, $4))
              ORDER BY c.created_at DESC, c.id DESC LIMIT $5`,
            [storeId, pattern, null, null, 21],
            'system',
          ],
        ];
      },
      'delivery log': async () => [
        [
          `SELECT * FROM webhook_deliveries
            WHERE webhook_id = $1 AND ($2::text IS NULL OR status = $2)
              AND ($3::timestamptz IS NULL OR (created_at, id) < ($3::timestamptz, $4::uuid))
            ORDER BY created_at DESC, id DESC LIMIT $5`,
          [webhookId, null, null, null, 21],
        ],
        [
          'SELECT * FROM webhook_attempts WHERE delivery_id = ANY ($1::uuid[]) ORDER BY delivery_id, attempt',
          [
            await ids(
              `SELECT id FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY created_at DESC, id DESC LIMIT 20`,
              [webhookId],
            ),
          ],
        ],
      ],
    },
  };
}

/**
 * EXPLAIN (ANALYZE, BUFFERS) of each route's statements, `runs` times with fresh parameters: as the
 * request role bound to the merchant's session, or (a definer function's statement) as the system
 * role through the start-up login. Answers the last run's plans and, per route, the median of its
 * statements' execution time in the database (a definer's own statement is inside its caller's).
 */
async function explainAll(
  env: Record<string, string>,
  db: pg.Pool,
  token: string,
  statements: Routes['statements'],
  runs: number,
): Promise<{ plans: GrowthResults['plans']; databaseMs: Record<GrowthQuery, number> }> {
  const binding = await requestBinding(env, token);
  const request = new pg.Client({ connectionString: binding.databaseUrl });
  await request.connect();
  const system = await db.connect();
  const plans = {} as GrowthResults['plans'];
  const databaseMs = {} as Record<GrowthQuery, number>;
  const explain = async ([sql, params, role]: Statement): Promise<string> => {
    const client = role === 'system' ? system : request;
    await client.query('BEGIN');
    try {
      if (role === 'system') {
        await client.query('SET LOCAL ROLE storefront_system');
      } else {
        const bound = await client.query('SELECT 1 FROM app_bind_request($1, $2)', [binding.sessionId, binding.proof]);
        if (bound.rowCount !== 1) throw new Error('the merchant session could not be bound');
      }
      const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params);
      return rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n');
    } finally {
      await client.query('ROLLBACK');
    }
  };
  try {
    for (const name of GROWTH_QUERIES) {
      const totals: number[] = [];
      for (let run = 0; run <= runs; run++) {
        const chosen = await statements[name]();
        const texts: string[] = [];
        for (const statement of chosen) texts.push(await explain(statement));
        // The first run warms the caches as the measured requests had; it is not counted.
        if (run === 0) continue;
        plans[name] = texts;
        totals.push(
          texts
            .filter((_, index) => chosen[index][2] !== 'system')
            .reduce((sum, text) => sum + Number(/Execution Time: ([\d.]+) ms/.exec(text)?.[1] ?? Number.NaN), 0),
        );
      }
      totals.sort((a, b) => a - b);
      databaseMs[name] = totals[Math.floor(totals.length / 2)] ?? 0;
    }
  } finally {
    system.release();
    await request.end();
  }
  return { plans, databaseMs };
}

export async function measureGrowth(
  apiUrl: string,
  env: Record<string, string>,
  db: pg.Pool,
  owner: Merchant,
  settings: GrowthSettings,
  log: (message: string) => void,
): Promise<GrowthResults> {
  const webhook = await call('POST', `${apiUrl}/functions/v1/webhooks/register`, {
    token: owner.token,
    body: { store_id: owner.storeId, url: 'http://127.0.0.1:9/growth', events: ['order.updated'] },
  });
  const webhookId = webhook.body.webhook.id as string;
  // Its log is read, never written to: nothing is sent to it.
  await call('PATCH', `${apiUrl}/functions/v1/webhooks/${webhookId}`, {
    token: owner.token,
    body: { status: 'disabled' },
  });
  const { rows } = await db.query(`SELECT currency, now() - interval '400 days' AS base FROM stores WHERE id = $1`, [
    owner.storeId,
  ]);
  const store = {
    id: owner.storeId,
    userId: owner.userId,
    currency: rows[0].currency,
    webhookId,
    base: new Date(rows[0].base),
  };
  store.base.setUTCMilliseconds(0);

  const steps: GrowthStep[] = [];
  let previous = counts(0);
  let plans = {} as GrowthResults['plans'];
  for (const size of settings.sizes) {
    const target = counts(size);
    log(
      `growth: seeding ${size} orders (${target.products} ` +
        `products, ${target.customers} customers, ${2 * target.deliveries} attempts)`,
    );
    const started = Date.now();
    await grow(env.DATABASE_URL, store, previous, target);
    const seedSeconds = (Date.now() - started) / 1000;
    previous = target;
    const cursors = await productCursors(db, owner.storeId, target.products);
    const measured = routes(db, owner.storeId, webhookId, target, cursors);
    log(`growth: ${size} orders seeded in ${seedSeconds.toFixed(1)} s; measuring`);
    const latency = await measureRoutes(apiUrl, owner.token, measured.paths, settings);
    const loadAvg = os.loadavg()[0];
    const explained = await explainAll(env, db, owner.token, measured.statements, 5);
    plans = explained.plans;
    steps.push({
      size,
      rows: await rowCounts(db, owner.storeId),
      disk_mib: await diskUse(db),
      seed_s: seedSeconds,
      latency,
      database_ms: explained.databaseMs,
      load_avg: loadAvg,
    });
    log(
      `growth: ${size}: ${GROWTH_QUERIES.map((name) => `${name} p50 ${latency[name].p50.toFixed(1)} ms`).join(', ')}`,
    );
  }

  const first = steps[0];
  const final = steps[steps.length - 1];
  const p50Ratio = Object.fromEntries(
    GROWTH_QUERIES.map((name) => [name, final.latency[name].p50 / first.latency[name].p50]),
  ) as Record<GrowthQuery, number>;
  return { steps, p50_ratio: p50Ratio, consistent: await consistent(db, owner.storeId), plans };
}
