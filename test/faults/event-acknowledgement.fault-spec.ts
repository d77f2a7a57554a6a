import type pg from 'pg';
import { WebhookReceiver } from '../fakes/webhook-receiver.js';
import { FaultStack } from './support/stack.js';

/** Short, so that the events a dead worker owed are published again within seconds of a new worker's start. */
const ACK_TIMEOUT_MS = 2000;

/**
 * (g) A worker is SIGKILLed between publishing store events on its EventBus and acknowledging them:
 * its relay has claimed the events (marked dispatched) and published them, and the webhook dispatch's
 * statement — deliveries plus acknowledgement — waits on a lock the test holds on `webhook_deliveries`. The
 * worker is killed there, and so are its database sessions (as when its machine dies; a session that
 * outlived its process would commit the statement once the lock goes, which the second test covers).
 * A new worker publishes the unacknowledged events again once their deadline passes: each arrives at
 * the receiver exactly once, and each is acknowledged once.
 */
/**
 * How many of the events $1 the webhook dispatch still owes an acknowledgement (they are in an owed publication of
 * its).
 */
const OWED = `SELECT count(*)::int FROM outbox_owed_acks o, unnest(o.event_ids) AS owed(id)
               WHERE o.subscriber = 'webhooks' AND owed.id = ANY ($1::uuid[])`;

describe('fault: worker killed between publishing events and acknowledging them', () => {
  let stack: FaultStack;
  let receiver: WebhookReceiver;
  let receiverUrl: string;
  let merchant: { token: string; storeId: string };

  beforeAll(async () => {
    receiver = new WebhookReceiver();
    receiverUrl = await receiver.start();
    stack = await FaultStack.start('event_ack', { OUTBOX_ACK_TIMEOUT_MS: String(ACK_TIMEOUT_MS) });
    merchant = await stack.merchant();
  });
  afterAll(async () => {
    await stack?.close();
    await receiver?.stop();
  });

  /**
   * Holds every acknowledgement of the webhook dispatch back until `release`: its statement inserts the
   * deliveries, and no INSERT into webhook_deliveries passes this lock (the relay's claims still do).
   */
  async function blockAcknowledgements(): Promise<{ release: () => Promise<void> }> {
    const client: pg.PoolClient = await stack.services.db.connect();
    await client.query('BEGIN');
    await client.query('LOCK TABLE webhook_deliveries IN SHARE MODE');
    return {
      release: async () => {
        await client.query('ROLLBACK');
        client.release();
      },
    };
  }

  /** Creates `count` customers (one customer.created event each) and answers the events' ids. */
  async function customerEvents(count: number, label: string): Promise<string[]> {
    const ids: string[] = [];
    for (let index = 0; index < count; index += 1) {
      const created = await stack.call('POST', `/functions/v1/stores/${merchant.storeId}/customers`, {
        token: merchant.token,
        body: { name: `${label} ${index}`, email: `${label}-${index}@example.com` },
      });
      const { rows } = await stack.services.db.query<{ id: string }>(
        `SELECT id FROM outbox_events WHERE event = 'customer.created' AND data->>'customer_id' = $1`,
        [created.body.customer.id],
      );
      ids.push(rows[0].id);
    }
    return ids;
  }

  /**
   * Waits until the worker has published some of the events and its acknowledging statement waits on
   * the lock, every published event still owed; answers the events published. (With its one batch in
   * flight stuck, the relay claims no more: the rest stay undispatched, which the new worker relays as
   * any backlog.)
   */
  async function publishedNotAcknowledged(ids: string[]): Promise<string[]> {
    let last: unknown;
    await stack
      .eventually(
        'events published and their acknowledgement waiting',
        async () => {
          const { rows } = await stack.services.db.query<{ dispatched: number; waiting: number; owed: number }>(
            `SELECT (SELECT count(*)::int FROM outbox_events WHERE id = ANY ($1::uuid[]) AND dispatched_at IS NOT NULL)
              AS dispatched,
                    (SELECT count(*)::int FROM pg_stat_activity
                      WHERE datname = current_database() AND wait_event_type = 'Lock'
                        AND query LIKE '%acked_publication%') AS waiting,
                    (${OWED}) AS owed`,
            [ids],
          );
          last = rows[0];
          return rows[0].dispatched > 0 && rows[0].waiting === 1 && rows[0].owed === rows[0].dispatched;
        },
        60_000,
      )
      .catch((error: Error) => {
        throw new Error(`${error.message}; last seen: ${JSON.stringify(last)}`);
      });
    const { rows } = await stack.services.db.query<{ id: string }>(
      'SELECT id FROM outbox_events WHERE id = ANY ($1::uuid[]) AND dispatched_at IS NOT NULL',
      [ids],
    );
    return rows.map((row) => row.id);
  }

  /**
   * Waits until every event was acknowledged by the dispatch and its delivery succeeded; answers arrivals per event id.
   */
  async function settled(ids: string[]): Promise<Map<string, number>> {
    await stack.eventually(
      'every event delivered and acknowledged',
      async () => {
        const { rows } = await stack.services.db.query<{ owed: number; succeeded: number }>(
          `SELECT (${OWED}) AS owed,
                  (SELECT count(*)::int FROM webhook_deliveries WHERE event_id = ANY ($1::uuid[])
                    AND status = 'succeeded') AS succeeded`,
          [ids],
        );
        return rows[0].owed === 0 && rows[0].succeeded === ids.length;
      },
      90_000,
    );
    const arrivals = new Map<string, number>();
    for (const request of receiver.requests) {
      const id = JSON.parse(request.body).id as string;
      arrivals.set(id, (arrivals.get(id) ?? 0) + 1);
    }
    return arrivals;
  }

  it(
    'published, not acknowledged, worker and sessions killed: ' +
      'a new worker publishes again, each event arrives once',
    async () => {
      await stack.startWorker();
      await stack.call('POST', '/functions/v1/webhooks/register', {
        token: merchant.token,
        body: { store_id: merchant.storeId, url: `${receiverUrl}/ok/acks`, events: ['customer.created'] },
      });
      const lock = await blockAcknowledgements();
      let ids: string[];
      let published: string[];
      try {
        ids = await customerEvents(20, 'killed');
        published = await publishedNotAcknowledged(ids);
        await stack.killWorker();
        // The dead worker's sessions go with it (a statement waiting on the lock would otherwise run once it is
        // released).
        await stack.services.db.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%acked_publication%'`,
        );
      } finally {
        await lock.release();
      }
      expect(receiver.requests).toHaveLength(0);

      await stack.startWorker();
      const arrived = await settled(ids);
      expect(ids.filter((id) => arrived.get(id) !== 1)).toEqual([]);
      const { rows } = await stack.services.db.query<{ deliveries: number }>(
        `SELECT (SELECT count(*)::int FROM webhook_deliveries d WHERE d.event_id = e.id) AS deliveries
         FROM outbox_events e WHERE e.id = ANY ($1::uuid[])`,
        [ids],
      );
      // One delivery each. The events the dead worker had claimed (dispatched, so no relay claims them
      // again) arrived: only a republication of their publication could have sent them.
      expect(rows.map((row) => row.deliveries)).toEqual(ids.map(() => 1));
      expect(published.length).toBeGreaterThan(0);
      expect(published.filter((id) => arrived.get(id) !== 1)).toEqual([]);
      expect(receiver.requests).toHaveLength(ids.length);
    },
    240_000,
  );

  it(
    'published, worker killed while its session lives on ' + 'and commits the acknowledgement: each event arrives once',
    async () => {
      const lock = await blockAcknowledgements();
      const before = receiver.requests.length;
      let ids: string[];
      let published: string[];
      try {
        ids = await customerEvents(20, 'orphaned');
        published = await publishedNotAcknowledged(ids);
        await stack.killWorker();
      } finally {
        await lock.release();
      }
      // The orphaned session's statement commits the deliveries and the acknowledgement, with no worker left to enqueue
      // them.
      await stack.eventually(
        'the orphaned statements committed',
        async () =>
          (await stack.services.db.query<{ owed: number }>(`SELECT (${OWED}) AS owed`, [published])).rows[0].owed === 0,
        30_000,
      );
      await stack.startWorker();
      const arrived = await settled(ids);
      expect(ids.filter((id) => arrived.get(id) !== 1)).toEqual([]);
      expect(receiver.requests.length - before).toBe(ids.length);
    },
    240_000,
  );
});
