import { once } from 'node:events';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { call, inParallel, sleep } from '../lib/http.js';

/**
 * Where the order status changes come from: `api` sends `PATCH /functions/v1/orders/{id}` (end to
 * end, and bounded by what the API can write beside everything else on the machine); `sql` commits
 * the same change and events straight in PostgreSQL, so the pipeline itself gets the full rate.
 */
export type ChangeSource = 'api' | 'sql';

export interface WebhookSettings {
  source: ChangeSource;
  /** Order status changes per second. */
  rate: number;
  durationSec: number;
  /** How long to wait for the last deliveries after the load ends. */
  drainSec: number;
}

export interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export interface WebhookResults {
  source: ChangeSource;
  rate: number;
  durationSec: number;
  /**
   * Changes committed, and per second from the first commit to the last (below `rate` when the source could not keep
   * up).
   */
  changes: number;
  committedRate: number;
  /** Changes refused or failed (they fire no event). */
  refused: number;
  delivered: number;
  lost: number;
  duplicates: number;
  /** Deliveries per second from the first arrival to the last. */
  deliveriesPerSec: number;
  /** From the event's transaction (its outbox row's created_at: at or before the commit) to the receiver. */
  commitToArrival: Percentiles;
  /** From the change's answer (after the commit) to the receiver: a lower bound. */
  answerToArrival: Percentiles;
  deliveryStatuses: Record<string, number>;
}

interface Api {
  url: string;
  token: string;
  storeId: string;
  productIds: string[];
}

const now = () => performance.timeOrigin + performance.now();

export function percentiles(values: number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) =>
    sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : NaN;
  const round = (value: number) => Math.round(value * 10) / 10;
  return { p50: round(at(0.5)), p95: round(at(0.95)), p99: round(at(0.99)), max: round(sorted.at(-1) ?? NaN) };
}

/**
 * The app's status change as one statement: the order moves, and `order.updated` + `order.paid` are written with it.
 */
const SQL_CHANGE = `
  WITH moved AS (
    UPDATE orders SET status = 'paid', updated_at = now() WHERE id = $1 RETURNING *
  ), data AS (
    SELECT m.store_id, jsonb_build_object(
             'order_id', m.id, 'order_number', m.order_number, 'total', m.total::float8, 'currency', m.currency,
             'status', m.status, 'customer', NULL,
             'items', (SELECT jsonb_agg(jsonb_build_object('product_id', i.product_id, 'name', i.name, 'quantity',
               i.quantity,
                                                           'price', i.price::float8) ORDER BY i.position)
                         FROM order_items i WHERE i.order_id = m.id)) AS body
      FROM moved m
  )
  INSERT INTO outbox_events (store_id, event, data)
  SELECT d.store_id, kind, d.body FROM data d, unnest(ARRAY['order.updated', 'order.paid']) AS kind
  RETURNING id, event`;

/**
 * Changes order statuses at a fixed rate and measures the `order.updated` webhook deliveries at a
 * receiver on 127.0.0.1: throughput, latency from the change to the arrival, and every event that
 * did not arrive. Needs a worker process running the outbox relay and the deliveries.
 */
export async function measureWebhooks(api: Api, db: pg.Pool, settings: WebhookSettings): Promise<WebhookResults> {
  // Arrivals by envelope id (sql: the change answers it) and by order id (api: one change per order).
  const arrivals = new Map<string, { at: number; createdAt: number }>();
  let received = 0;
  const envelopes = new Set<string>();
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = now();
      response.writeHead(200).end('ok');
      const envelope = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      received += 1;
      envelopes.add(envelope.id);
      const arrival = { at, createdAt: Date.parse(envelope.created_at) };
      if (!arrivals.has(envelope.id)) arrivals.set(envelope.id, arrival);
      if (!arrivals.has(envelope.data.order_id)) arrivals.set(envelope.data.order_id, arrival);
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/orders`;

  const webhook = await call('POST', `${api.url}/functions/v1/webhooks/register`, {
    token: api.token,
    body: { store_id: api.storeId, url: receiverUrl, events: ['order.updated'] },
  });
  try {
    const wanted = settings.rate * settings.durationSec;
    const orderIds =
      settings.source === 'api' ? await pendingOrders(api, db, wanted) : await anyOrders(api, db, wanted);

    /** One change; answers the key its delivery will be found by. */
    const change = async (orderId: string): Promise<string> => {
      if (settings.source === 'sql') {
        const rows = (await db.query<{ id: string; event: string }>(SQL_CHANGE, [orderId])).rows;
        return rows.find((row) => row.event === 'order.updated')!.id;
      }
      const response = await fetch(`${api.url}/functions/v1/orders/${orderId}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json' },
        body: '{"status":"paid"}',
      });
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`PATCH answered ${response.status}`);
      return orderId;
    };

    // Fixed rate: change i starts at start + i / rate, whether or not earlier ones have answered.
    const answered = new Map<string, number>();
    let refused = 0;
    const inFlight: Promise<void>[] = [];
    const start = now();
    for (let index = 0; index < wanted; index++) {
      const wait = start + (index * 1000) / settings.rate - now();
      if (wait > 1) await sleep(wait);
      inFlight.push(
        change(orderIds[index % orderIds.length]).then(
          (key) => void answered.set(key, now()),
          () => void (refused += 1),
        ),
      );
    }
    await Promise.all(inFlight);

    // Drain: until every committed change arrived, or nothing new came for drainSec.
    let last = arrivals.size;
    let quietSince = now();
    while ([...answered.keys()].some((key) => !arrivals.has(key)) && now() - quietSince < settings.drainSec * 1000) {
      await sleep(250);
      if (arrivals.size !== last) {
        last = arrivals.size;
        quietSince = now();
      }
    }

    const delivered = [...answered.keys()].filter((key) => arrivals.has(key));
    const arrivedAt = delivered.map((key) => arrivals.get(key)!.at);
    const committedAt = [...answered.values()];
    const statuses = await db.query<{ status: string; count: string }>(
      'SELECT status, count(*) FROM webhook_deliveries WHERE webhook_id = $1 GROUP BY status',
      [webhook.body.webhook.id],
    );
    const perSecond = (count: number, times: number[]) =>
      Math.round((count / ((Math.max(...times) - Math.min(...times)) / 1000)) * 10) / 10;
    return {
      source: settings.source,
      rate: settings.rate,
      durationSec: settings.durationSec,
      changes: answered.size,
      committedRate: perSecond(answered.size, committedAt),
      refused,
      delivered: delivered.length,
      lost: answered.size - delivered.length,
      duplicates: received - envelopes.size,
      deliveriesPerSec: perSecond(delivered.length, arrivedAt),
      commitToArrival: percentiles(delivered.map((key) => arrivals.get(key)!.at - arrivals.get(key)!.createdAt)),
      answerToArrival: percentiles(delivered.map((key) => arrivals.get(key)!.at - answered.get(key)!)),
      deliveryStatuses: Object.fromEntries(statuses.rows.map((row) => [row.status, Number(row.count)])),
    };
  } finally {
    // Gone before the next run registers its own, so that run's events are not sent here too.
    await call('DELETE', `${api.url}/functions/v1/webhooks/${webhook.body.webhook.id}`, { token: api.token });
    receiver.closeAllConnections();
    receiver.close();
  }
}

/** `count` pending orders of the store: those the write benchmark placed, topped up through the API. */
async function pendingOrders(api: Api, db: pg.Pool, count: number): Promise<string[]> {
  const pending = async () =>
    (
      await db.query<{ id: string }>(
        `SELECT id FROM orders WHERE store_id = $1 AND status = 'pending' ORDER BY random() LIMIT $2`,
        [api.storeId, count],
      )
    ).rows.map((row) => row.id);
  const missing = count - (await pending()).length;
  await inParallel(Array.from({ length: Math.max(0, missing) }), 8, (_, index) =>
    call('POST', `${api.url}/functions/v1/stores/${api.storeId}/orders`, {
      token: api.token,
      body: { items: [{ product_id: api.productIds[index % api.productIds.length], quantity: 1 }] },
    }),
  );
  return pending();
}

/**
 * Up to `count` orders of the store, whatever their status (the sql source changes any order, and
 * cycles through them); a store without orders (the api scenario did not run) first gets some.
 */
async function anyOrders(api: Api, db: pg.Pool, count: number): Promise<string[]> {
  const found = async () =>
    (
      await db.query<{ id: string }>('SELECT id FROM orders WHERE store_id = $1 LIMIT $2', [api.storeId, count])
    ).rows.map((row) => row.id);
  const orders = await found();
  return orders.length >= Math.min(count, 100) ? orders : pendingOrders(api, db, Math.min(count, 100));
}

export interface KneeSettings {
  /** Change rates (per second) to step through, lowest first. */
  rates: number[];
  /** Seconds of changes at each rate. */
  stepSec: number;
  drainSec: number;
}

export interface KneeStep {
  rate: number;
  changes: number;
  committedRate: number;
  delivered: number;
  lost: number;
  duplicates: number;
  deliveriesPerSec: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /** p95 commit→arrival under KNEE_P95_MS and nothing lost. */
  passed: boolean;
}

export interface KneeResults {
  stepSec: number;
  /** What a step must meet: p95 commit→arrival under this many ms, and 0 lost. */
  p95LimitMs: number;
  steps: KneeStep[];
  /** The highest rate that met the limits (null: none did). */
  knee: number | null;
}

export const KNEE_P95_MS = 100;

/**
 * The knee of the pipeline: changes committed in SQL at rising rates, each for a short step (the
 * previous step's deliveries drained first), p95 commit→arrival and events lost at each; the knee is
 * the highest rate with p95 < 100 ms and none lost.
 */
export async function measureKnee(api: Api, db: pg.Pool, settings: KneeSettings): Promise<KneeResults> {
  const steps: KneeStep[] = [];
  for (const rate of settings.rates) {
    const run = await measureWebhooks(api, db, {
      source: 'sql',
      rate,
      durationSec: settings.stepSec,
      drainSec: settings.drainSec,
    });
    const { p50, p95, p99, max } = run.commitToArrival;
    const passed = run.lost === 0 && run.refused === 0 && p95 < KNEE_P95_MS;
    steps.push({
      rate,
      changes: run.changes,
      committedRate: run.committedRate,
      delivered: run.delivered,
      lost: run.lost,
      duplicates: run.duplicates,
      deliveriesPerSec: run.deliveriesPerSec,
      p50,
      p95,
      p99,
      max,
      passed,
    });
  }
  const passing = steps.filter((step) => step.passed).map((step) => step.rate);
  return {
    stepSec: settings.stepSec,
    p95LimitMs: KNEE_P95_MS,
    steps,
    knee: passing.length ? Math.max(...passing) : null,
  };
}
