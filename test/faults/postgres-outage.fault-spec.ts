import { WebhookReceiver } from '../fakes/webhook-receiver.js';
import { PostgresServer } from './support/postgres-server.js';
import { FaultStack } from './support/stack.js';

/** How long the database stays down. */
const OUTAGE_MS = 10_000;
/** The longest any answer may take, outage or not: the pool's connect bound (5 s by default) and some slack. */
const ANSWER_BOUND_MS = 7000;

interface Answer {
  status: number;
  code?: string;
  retryAfter: string | null;
  ms: number;
  /** While the database was down (sent or answered then). */
  during: boolean;
  orderId?: string;
  text: string;
}

/**
 * (d) PostgreSQL (a private cluster) is stopped for 10 s during order traffic and started again; the
 * API and the worker keep running. Meanwhile the API answers 503 SERVICE_UNAVAILABLE in the envelope
 * with Retry-After, quickly, and /health/ready says 503; afterwards orders are taken again without a
 * restart, every order answered 201 is whole and has its event delivered, and no order exists that
 * was not answered 201 (unless its request got no answer at all).
 */
describe('fault: PostgreSQL stopped during order traffic', () => {
  let postgres: PostgresServer;
  let stack: FaultStack;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    postgres = await PostgresServer.start();
    receiver = new WebhookReceiver();
    stack = await FaultStack.start('postgres_outage', {}, { databaseUrl: postgres.url() });
  });
  afterAll(async () => {
    // The database is removed with the whole cluster; a failed test may have left it stopped.
    await stack?.close().catch(() => undefined);
    await postgres?.remove();
    await receiver?.stop();
  });

  it(
    'answers 503 while the database is down, recovers ' + 'without a restart, and loses no committed order or event',
    async () => {
      const receiverUrl = await receiver.start();
      const worker = await stack.startWorker();
      const { token, storeId } = await stack.merchant();
      const product = await stack.call('POST', `/functions/v1/stores/${storeId}/products`, {
        token,
        body: { name: 'Kettle', price: 25, status: 'active', inventory_quantity: 1_000_000 },
      });
      await stack.call('POST', '/functions/v1/webhooks/register', {
        token,
        body: { store_id: storeId, url: `${receiverUrl}/ok/orders`, events: ['order.created'] },
      });

      const answers: Answer[] = [];
      const unanswered: string[] = [];
      let down = false;
      let running = true;
      const lane = async () => {
        while (running) {
          const sentDuring = down;
          const started = Date.now();
          try {
            const response = await fetch(`${stack.url}/functions/v1/stores/${storeId}/orders`, {
              method: 'POST',
              headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
              body: JSON.stringify({ items: [{ product_id: product.body.product.id, quantity: 2 }] }),
              signal: AbortSignal.timeout(30_000),
            });
            const text = await response.text();
            const body = JSON.parse(text) as { order?: { id: string }; error?: { code?: string } };
            answers.push({
              status: response.status,
              code: body.error?.code,
              retryAfter: response.headers.get('retry-after'),
              ms: Date.now() - started,
              during: sentDuring || down,
              orderId: body.order?.id,
              text,
            });
          } catch (error) {
            unanswered.push((error as Error).message);
          }
          // Answers come fast while the database is down: keep the load to a few requests a second per lane.
          if (down) await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };
      const traffic = Promise.all([lane(), lane()]);

      await stack.eventually('deliveries before the outage', async () => receiver.requests.length >= 10, 30_000);
      await postgres.stop('fast');
      down = true;
      const outageStarted = Date.now();
      const placedBefore = answers.filter((answer) => !answer.during).length;

      // Readiness says what is missing, soon after the stop, and answers quickly.
      const readyWhileDown = await stack.eventually(
        '/health/ready 503 while the database is down',
        async () => {
          const started = Date.now();
          const response = await fetch(`${stack.url}/health/ready`, { signal: AbortSignal.timeout(ANSWER_BOUND_MS) });
          return response.status === 503 ? { ms: Date.now() - started, body: await response.json() } : null;
        },
        5000,
      );
      expect(readyWhileDown.body).toMatchObject({
        success: false,
        error: { code: 'SERVICE_UNAVAILABLE', details: { postgres: 'down', redis: 'up' } },
      });
      await stack.eventually(
        'orders answered 503 during the outage',
        async () => answers.some((answer) => answer.status === 503),
        5000,
      );
      // The outage lasts its full length whatever the assertions above took.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, OUTAGE_MS - (Date.now() - outageStarted))));
      await postgres.resume();
      down = false;
      const resumedAt = answers.length;

      // Recovery without a restart: orders are taken again and readiness says so.
      await stack.eventually(
        'an order answered 201 after the restart of PostgreSQL',
        async () => answers.slice(resumedAt).some((a) => a.status === 201),
        30_000,
      );
      await stack.eventually(
        '/health/ready 200 again',
        async () => (await fetch(`${stack.url}/health/ready`)).status === 200,
        30_000,
      );
      const recoveredAfterMs = Date.now() - outageStarted - OUTAGE_MS;
      await new Promise((resolve) => setTimeout(resolve, 1000));
      running = false;
      await traffic;

      expect(stack.api.process.exitCode, 'the API kept running').toBeNull();
      expect(worker.process.exitCode, 'the worker kept running').toBeNull();
      expect(unanswered, 'every request got an answer').toEqual([]);

      // Every answer was a 201 or a 503 in the envelope with Retry-After: no 500, no stack trace, no hang.
      const failed = answers.filter((answer) => answer.status !== 201);
      expect(failed.length).toBeGreaterThan(0);
      for (const answer of failed) {
        expect(answer, answer.text).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
        expect(Number(answer.retryAfter)).toBeGreaterThan(0);
        expect(answer.text).not.toMatch(/\bat .+\(|stack|ECONNREFUSED|terminat/i);
      }
      const slowest = Math.max(...answers.map((answer) => answer.ms));
      expect(slowest, 'the slowest answer, ms').toBeLessThan(ANSWER_BOUND_MS);
      const during503 = failed.map((answer) => answer.ms).sort((a, b) => a - b);

      // Orders in the database: each whole (items, total equal to the items'), each answered 201 unless
      // its request got no answer (none here).
      const answered = new Set(answers.filter((answer) => answer.status === 201).map((answer) => answer.orderId!));
      const { rows: orders } = await stack.services.db.query<{
        id: string;
        total: string;
        items: string;
        items_total: string;
      }>(
        `SELECT o.id, o.total, count(i.id) AS items, coalesce(sum(i.price * i.quantity), 0) AS items_total
         FROM orders o LEFT JOIN order_items i ON i.order_id = o.id
        WHERE o.store_id = $1 GROUP BY o.id`,
        [storeId],
      );
      for (const order of orders) {
        expect(Number(order.items), `items of order ${order.id}`).toBe(1);
        expect(order.total, `total of order ${order.id}`).toBe(order.items_total);
      }
      expect(new Set(orders.map((order) => order.id))).toEqual(answered);

      // Every committed order's event reaches the receiver.
      const { rows: events } = await stack.services.db.query<{ id: string; order_id: string }>(
        `SELECT id, data->>'order_id' AS order_id FROM outbox_events WHERE store_id = $1 AND event = 'order.created'`,
        [storeId],
      );
      expect(new Set(events.map((event) => event.order_id))).toEqual(answered);
      const arrived = () => new Set(receiver.requests.map((request) => JSON.parse(request.body).id as string));
      const deliveriesFrom = Date.now();
      await stack.eventually(
        'every event at the receiver',
        async () => events.every((event) => arrived().has(event.id)),
        120_000,
      );
      const deliveredAfterMs = Date.now() - deliveriesFrom;

      console.info(
        `PostgreSQL outage: ${placedBefore} orders before, ${failed.length} ` +
          `answered 503 during the ${OUTAGE_MS / 1000} s outage ` +
          `(p50 ${during503[Math.floor(during503.length / 2)]} ms, max ${during503.at(-1)} ms), ` +
          `/health/ready 503 in ${readyWhileDown.ms} ms; orders again ${recoveredAfterMs} ms after the restart; ` +
          `${answered.size} orders answered 201, all whole, all ${events.length} ` +
          `events delivered (the last ${deliveredAfterMs} ms after the traffic), ` +
          `${receiver.requests.length - arrived().size} twice; slowest answer ${slowest} ms`,
      );
    },
    300_000,
  );
});
