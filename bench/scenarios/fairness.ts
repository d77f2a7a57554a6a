import type pg from 'pg';
import { SwitchableReceiver } from '../../test/fakes/switchable-receiver.js';
import { commitStoreEvents } from '../lib/events.js';
import { call, sleep } from '../lib/http.js';
import { percentiles, type Percentiles } from './webhooks.js';

export interface FairnessSettings {
  /** Events of the hanging store, committed at once before the other store's flow starts. */
  backlog: number;
  /** The other store's events per second, and for how long (the hanging receiver hangs as long). */
  rate: number;
  durationSec: number;
  /** How long to wait for the hanging store's backlog once its receiver recovers. */
  drainSec: number;
}

export interface FairnessResults {
  backlog: number;
  rate: number;
  durationSec: number;
  /** The other store: every event's commit → arrival, and the events that did not arrive. */
  flowing: { events: number; delivered: number; lost: number; commitToArrival: Percentiles };
  /** The store whose receiver hung to the timeout, then recovered. */
  hanging: {
    events: number;
    /** Requests it was sent while it hung (each one timed out). */
    sentWhileHanging: number;
    /** The most requests it had in flight at once, across every worker. */
    maxInFlight: number;
    delivered: number;
    lost: number;
    /** From its recovery to its last event's arrival. */
    drainSec: number;
    /** Attempts recorded for its deliveries, and requests it received: equal when parking counts none. */
    attemptsRecorded: number;
    requestsReceived: number;
    deliveryStatuses: Record<string, number>;
  };
}

interface Store {
  token: string;
  storeId: string;
}

/**
 * Fair delivery between tenants: store A's receiver hangs until the worker's timeout with `backlog`
 * events queued, while store B's events flow at `rate`/s for `durationSec`; then A's receiver
 * recovers. Measures B's commit → arrival (what A's backlog costs another store), how hard A was
 * hammered while it hung, and whether every one of A's events arrives after. Events are committed
 * straight in SQL, as the app writes them. Needs a worker process running the relay and deliveries.
 */
export async function measureFairness(
  url: string,
  db: pg.Pool,
  stores: { a: Store; b: Store },
  settings: FairnessSettings,
): Promise<FairnessResults> {
  const hanging = new SwitchableReceiver();
  const flowing = new SwitchableReceiver();
  const register = async (store: Store, receiverUrl: string) =>
    (
      await call('POST', `${url}/functions/v1/webhooks/register`, {
        token: store.token,
        body: { store_id: store.storeId, url: receiverUrl, events: ['product.updated'] },
      })
    ).body.webhook.id as string;
  try {
    const hangingWebhook = await register(stores.a, `${await hanging.start()}/a`);
    await register(stores.b, `${await flowing.start()}/b`);

    hanging.set({ kind: 'hang' });
    const backlog = await commitStoreEvents(db, stores.a.storeId, settings.backlog);

    const flow: string[] = [];
    const inFlight: Promise<void>[] = [];
    const started = Date.now();
    for (let index = 0; index < settings.rate * settings.durationSec; index++) {
      const wait = started + (index * 1000) / settings.rate - Date.now();
      if (wait > 1) await sleep(wait);
      inFlight.push(commitStoreEvents(db, stores.b.storeId, 1).then(([id]) => void flow.push(id)));
    }
    await Promise.all(inFlight);
    const waitFor = async (ids: string[], receiver: SwitchableReceiver, seconds: number) => {
      for (const until = Date.now() + seconds * 1000; Date.now() < until; await sleep(200)) {
        const delivered = receiver.delivered();
        if (ids.every((id) => delivered.has(id))) return;
      }
    };
    await waitFor(flow, flowing, 30);
    const sentWhileHanging = hanging.arrivals.length;

    const recoveredAt = Date.now();
    hanging.set({ kind: 'ok' });
    await waitFor(backlog, hanging, settings.drainSec);
    const arrivedA = hanging.delivered();
    const lastA = Math.max(
      ...hanging.arrivals.filter((arrival) => arrival.answered === 200).map((arrival) => arrival.at),
    );
    // The last attempts are recorded a moment after their answer.
    await sleep(1000);
    const statuses = await db.query<{ status: string; count: string }>(
      'SELECT status, count(*) FROM webhook_deliveries WHERE webhook_id = $1 GROUP BY status',
      [hangingWebhook],
    );
    const attempts = await db.query<{ count: number }>(
      'SELECT count(*)::int AS count FROM webhook_attempts t JOIN ' +
        'webhook_deliveries d ON d.id = t.delivery_id WHERE d.webhook_id = $1',
      [hangingWebhook],
    );
    const arrivedB = flowing.delivered();
    const firstArrivalB = new Map<string, number>();
    for (const arrival of flowing.arrivals)
      if (!firstArrivalB.has(arrival.id)) firstArrivalB.set(arrival.id, arrival.at - arrival.createdAt);
    return {
      backlog: settings.backlog,
      rate: settings.rate,
      durationSec: settings.durationSec,
      flowing: {
        events: flow.length,
        delivered: flow.filter((id) => arrivedB.has(id)).length,
        lost: flow.filter((id) => !arrivedB.has(id)).length,
        commitToArrival: percentiles(flow.filter((id) => firstArrivalB.has(id)).map((id) => firstArrivalB.get(id)!)),
      },
      hanging: {
        events: backlog.length,
        sentWhileHanging,
        maxInFlight: hanging.maxInFlight,
        delivered: backlog.filter((id) => arrivedA.has(id)).length,
        lost: backlog.filter((id) => !arrivedA.has(id)).length,
        drainSec: Math.round((lastA - recoveredAt) / 100) / 10,
        attemptsRecorded: attempts.rows[0].count,
        requestsReceived: hanging.arrivals.length,
        deliveryStatuses: Object.fromEntries(statuses.rows.map((row) => [row.status, Number(row.count)])),
      },
    };
  } finally {
    await hanging.stop();
    await flowing.stop();
  }
}
