/**
 * The benchmark's baseline: the same SQL as the API's product list and order placement, through
 * `pg` on a bare Fastify route, with no framework around it. What it leaves out is what the API
 * adds: JWT verification, the session and store-access checks, NestJS (guards, interceptors,
 * validation, CQRS), the error envelope, request logging and metrics. Both log in as the request
 * role and bind the transaction to the merchant's session (app_bind_request), so the database does
 * the same work.
 *
 * Env: PORT, DATABASE_URL (the request login), DATABASE_POOL_SIZE (default 10, as the API),
 * BASELINE_SESSION_ID and BASELINE_PROOF (the merchant's session and its binding proof).
 */
import Fastify from 'fastify';
import pg from 'pg';
import { PRODUCT_PAGE_SQL } from './lib/sql.js';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) });
const sessionId = process.env.BASELINE_SESSION_ID!;
const proof = process.env.BASELINE_PROOF!;
let userId = '';
const app = Fastify({ logger: false });

const PAGE = 20;

app.get('/health', async () => ({ status: 'ok' }));

/** One RLS-bound transaction, as the API's request transaction. */
async function inTenantTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const bound = await client.query('SELECT user_id FROM app_bind_request($1, $2)', [sessionId, proof]);
    if (bound.rowCount !== 1) throw new Error('the session could not be bound');
    userId = bound.rows[0].user_id;
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

app.get<{ Params: { storeId: string } }>('/functions/v1/stores/:storeId/products', async (request) => {
  const rows = await inTenantTransaction(
    async (client) => (await client.query(PRODUCT_PAGE_SQL, [request.params.storeId, null, null, null, null, null, PAGE + 1, false])).rows,
  );
  return { success: true, data: rows.slice(0, PAGE), next_cursor: rows.length > PAGE ? rows[PAGE - 1].id : null };
});

app.post<{ Params: { storeId: string }; Body: { items: { product_id: string; quantity: number }[] } }>(
  '/functions/v1/stores/:storeId/orders',
  async (request, reply) => {
    const storeId = request.params.storeId;
    const lines = request.body.items;
    const order = await inTenantTransaction(async (client) => {
      const products = new Map(
        (await client.query('SELECT * FROM products WHERE id = ANY ($1::uuid[])', [lines.map((line) => line.product_id)])).rows.map(
          (row) => [row.id, row],
        ),
      );
      let total = 0;
      for (const line of lines) total += Number(products.get(line.product_id).price) * line.quantity;
      // The order's number comes from the database (trigger), as in the API.
      const inserted = (
        await client.query(
          `INSERT INTO orders (store_id, customer_id, currency, total, placed_by)
           SELECT s.id, $2, s.currency, $3, $4 FROM stores s WHERE s.id = $1
           RETURNING *`,
          [storeId, null, total.toFixed(2), userId],
        )
      ).rows[0];
      await client.query(
        `INSERT INTO order_items (order_id, store_id, product_id, position, name, quantity, price)
         SELECT $1, $2, i.product_id, i.position, i.name, i.quantity, i.price
           FROM unnest($3::uuid[], $4::text[], $5::integer[], $6::numeric[]) WITH ORDINALITY
                AS i(product_id, name, quantity, price, position)`,
        [
          inserted.id,
          storeId,
          lines.map((line) => line.product_id),
          lines.map((line) => products.get(line.product_id).name),
          lines.map((line) => line.quantity),
          lines.map((line) => products.get(line.product_id).price),
        ],
      );
      // The order takes its stock in the database, as in the API.
      const moves = (await client.query('SELECT * FROM app_take_order_stock($1)', [inserted.id])).rows;
      const details = (
        await client.query(
          `SELECT o.*, c.name AS customer_name, c.email AS customer_email
             FROM orders o LEFT JOIN customers c ON c.id = o.customer_id WHERE o.id = $1`,
          [inserted.id],
        )
      ).rows[0];
      details.items = (
        await client.query(
          `SELECT order_id, product_id, position, name, quantity, price FROM order_items
            WHERE order_id = ANY ($1::uuid[]) ORDER BY order_id, position`,
          [[inserted.id]],
        )
      ).rows;
      // The order's events in one statement naming the bound caller as their actor, as OutboxService.appendAll
      // (a row-level security policy refuses a request's event naming anyone else).
      const stockEvents = moves.map((data) => ({ event: 'inventory.updated', data }));
      const events = [{ event: 'order.created', data: details }, ...stockEvents];
      await client.query(
        `INSERT INTO outbox_events (store_id, event, data, created_at, actor)
         SELECT $1, e.event, e.data, clock_timestamp() + make_interval(secs => e.position / 1e6), (SELECT app_actor())
           FROM ROWS FROM (json_to_recordset($2::json) AS (event text, data jsonb))
                WITH ORDINALITY AS e(event, data, position)
          ORDER BY e.position`,
        [storeId, JSON.stringify(events)],
      );
      return details;
    });
    reply.code(201);
    return { success: true, order };
  },
);

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
const stop = () => void app.close().then(() => pool.end().then(() => process.exit(0)));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
