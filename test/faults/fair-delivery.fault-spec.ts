import { commitStoreEvents } from '../../bench/lib/events.js';
import { SwitchableReceiver } from '../fakes/switchable-receiver.js';
import { FaultStack } from './support/stack.js';

const BACKLOG = 1000;
const FLOW_RATE = 50;
const FLOW_SECONDS = 15;
const ENDPOINT_CONCURRENCY = 2;

/** The p95 of `values` (nearest rank). */
function p95(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(0.95 * sorted.length) - 1)];
}

/**
 * (d) Fair delivery between tenants: store A's receiver hangs to the timeout with 1,000 events queued
 * while store B's events flow at 50/s, with two worker processes sharing the delivery gate (slots and
 * circuit in Redis). B's p95 commit→arrival stays under 1 s; A's receiver never has more than its two
 * requests in flight; once it recovers, every one of its 1,000 events arrives, no delivery failed, and
 * every request it was sent is an attempt recorded. Retry schedule, timeout and cool-down are
 * compressed so that the hang lasts far less than a delivery's five attempts would take to run out.
 */
describe('fault: a hanging receiver with a backlog beside another store', () => {
  let stack: FaultStack;
  const hanging = new SwitchableReceiver();
  const flowing = new SwitchableReceiver();

  beforeAll(async () => {
    stack = await FaultStack.start('fair_delivery', {
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_RETRY_DELAYS_MS: '0,2000,5000,10000,20000',
      WEBHOOK_ENDPOINT_CONCURRENCY: String(ENDPOINT_CONCURRENCY),
      WEBHOOK_CIRCUIT_FAILURES: '3',
      WEBHOOK_CIRCUIT_COOLDOWN_MS: '1000',
    });
  });
  afterAll(async () => {
    await stack?.close();
    await hanging.stop();
    await flowing.stop();
  });

  it("delays only the hanging store's own deliveries, and loses none of them", async () => {
    const hangingUrl = await hanging.start();
    const flowingUrl = await flowing.start();
    await stack.startWorker();
    await stack.startWorker();
    const register = async (url: string) => {
      const { token, storeId } = await stack.merchant();
      const webhook = await stack.call('POST', '/functions/v1/webhooks/register', {
        token,
        body: { store_id: storeId, url, events: ['product.updated'] },
      });
      return { storeId, webhookId: webhook.body.webhook.id as string };
    };
    const a = await register(`${hangingUrl}/a`);
    const b = await register(`${flowingUrl}/b`);
    const db = stack.services.db;

    // A's receiver hangs; its 1,000 events are committed at once (straight in SQL, as the app writes them).
    hanging.set({ kind: 'hang' });
    const backlog = await commitStoreEvents(db, a.storeId, BACKLOG);

    // B's events at 50/s while A hangs.
    const flow: string[] = [];
    const started = Date.now();
    for (let index = 0; index < FLOW_RATE * FLOW_SECONDS; index++) {
      const wait = started + (index * 1000) / FLOW_RATE - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const [id] = await commitStoreEvents(db, b.storeId, 1);
      flow.push(id);
    }
    await stack.eventually(
      'every event of B delivered',
      async () => flow.every((id) => flowing.delivered().has(id)),
      30_000,
    );
    const sentToAWhileHanging = hanging.arrivals.length;

    const latencies = flowing.arrivals.map((arrival) => arrival.at - arrival.createdAt);
    const bP95 = p95(latencies);
    expect(bP95).toBeLessThan(1000);
    // The breaker kept A from being hammered: far fewer requests than its events, however many workers.
    expect(sentToAWhileHanging).toBeLessThan(100);
    expect(hanging.maxInFlight).toBeLessThanOrEqual(ENDPOINT_CONCURRENCY);

    // A recovers: its circuit's next probe succeeds and the whole backlog follows.
    const recoveredAt = Date.now();
    hanging.set({ kind: 'ok' });
    await stack.eventually(
      'all 1,000 events of A delivered',
      async () => backlog.every((id) => hanging.delivered().has(id)),
      90_000,
    );
    const drainedMs = Date.now() - recoveredAt;

    let counts: Record<string, number> = {};
    await stack
      .eventually(
        'every delivery of A recorded as succeeded',
        async () => {
          const { rows } = await db.query<{ status: string; count: string }>(
            'SELECT status, count(*) FROM webhook_deliveries WHERE webhook_id = $1 GROUP BY status',
            [a.webhookId],
          );
          counts = Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
          return counts.succeeded === BACKLOG && Object.keys(counts).length === 1;
        },
        30_000,
      )
      .catch((error: Error) => {
        throw new Error(`${error.message}; deliveries by status: ${JSON.stringify(counts)}`);
      });
    const { rows: attempts } = await db.query<{ attempts: number; most: number }>(
      `SELECT count(*)::int AS attempts, max(d.attempt_count)::int AS most
         FROM webhook_attempts t JOIN webhook_deliveries d ON d.id = t.delivery_id WHERE d.webhook_id = $1`,
      [a.webhookId],
    );
    // An attempt is a request sent: parking recorded none, and every request sent was recorded.
    expect(attempts[0].attempts).toBe(hanging.arrivals.length);
    expect(attempts[0].most).toBeLessThan(5);
    const { rows: webhook } = await db.query<{ status: string }>('SELECT status FROM webhooks WHERE id = $1', [
      a.webhookId,
    ]);
    expect(webhook[0].status).toBe('active');
    expect(hanging.maxInFlight).toBeLessThanOrEqual(ENDPOINT_CONCURRENCY);

    console.info(
      `fair delivery: B ${flow.length} events at ${FLOW_RATE}/s, p95 ${bP95} ms, max ${Math.max(...latencies)} ms; ` +
        `A sent ${sentToAWhileHanging} requests while hanging (${BACKLOG} ` +
        `events), all ${BACKLOG} delivered ${drainedMs} ms after it recovered, ` +
        `${attempts[0].attempts} attempts recorded, at most ${hanging.maxInFlight} in flight`,
    );
  }, 180_000);
});
