import type pg from 'pg';
import { WebhookReceiver } from '../fakes/webhook-receiver.js';
import { FaultStack } from './support/stack.js';

/** Short, so that the events a dead worker owed are published again within seconds of a new worker's start. */
const ACK_TIMEOUT_MS = 2000;
/** The batches a relay lets its subscribers work on at once before it claims more (MAX_BATCHES_IN_FLIGHT in core). */
const MAX_BATCHES_IN_FLIGHT = 4;

/**
 * (g) A worker is SIGKILLed between publishing store events on its EventBus and acknowledging them:
 * its relay has claimed the events (marked dispatched) and published them, and the webhook dispatch's
 * statement — deliveries plus acknowledgement — waits on a lock the test holds on `outbox_acks`. The
 * worker is killed there, and so are its database sessions (as when its machine dies; a session that
 * outlived its process would commit the statement once the lock goes, which the second test covers).
 * A new worker publishes the unacknowledged events again once their deadline passes: each arrives at
 * the receiver exactly once, and each is acknowledged once.
 */
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

  /** Holds every acknowledgement back until `release` (a lock no INSERT into outbox_acks can pass). */
  async function blockAcknowledgements(): Promise<{ release: () => Promise<void> }> {
    const client: pg.PoolClient = await stack.services.db.connect();
    await client.query('BEGIN');
    await client.query('LOCK TABLE outbox_acks IN SHARE MODE');
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
   * Waits until the worker has published some of the events and its acknowledging statements wait on
   * the lock; answers the events published. (With MAX_BATCHES_IN_FLIGHT batches stuck, the relay claims
   * no more: the rest stay undispatched, which the new worker relays as any backlog.)
   */
  async function publishedNotAcknowledged(ids: string[]): Promise<string[]> {
    let last: unknown;
    await stack
      .eventually(
        'events published and their acknowledgement waiting',
        async () => {
          const { rows } = await stack.services.db.query<{ dispatched: number; waiting: number; acked: number }>(
            `SELECT (SELECT count(*)::int FROM outbox_events WHERE id = ANY ($1::uuid[]) AND dispatched_at IS NOT NULL) AS dispatched,
                    (SELECT count(*)::int FROM pg_stat_activity
                      WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO outbox_acks%') AS waiting,
                    (SELECT count(*)::int FROM outbox_acks WHERE event_id = ANY ($1::uuid[])) AS acked`,
            [ids],
          );
          last = rows[0];
          return rows[0].dispatched > 0 && rows[0].waiting === Math.min(rows[0].dispatched, MAX_BATCHES_IN_FLIGHT) && rows[0].acked === 0;
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

  /** Waits until every event was acknowledged by the dispatch and its delivery succeeded; answers arrivals per event id. */
  async function settled(ids: string[]): Promise<Map<string, number>> {
    await stack.eventually(
      'every event delivered and acknowledged',
      async () => {
        const { rows } = await stack.services.db.query<{ acked: number; succeeded: number }>(
          `SELECT (SELECT count(*)::int FROM outbox_acks WHERE event_id = ANY ($1::uuid[]) AND subscriber = 'webhooks') AS acked,
                  (SELECT count(*)::int FROM webhook_deliveries WHERE event_id = ANY ($1::uuid[]) AND status = 'succeeded') AS succeeded`,
          [ids],
        );
        return rows[0].acked === ids.length && rows[0].succeeded === ids.length;
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

  it('published, not acknowledged, worker and sessions killed: a new worker publishes again, each event arrives once', async () => {
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
      // The dead worker's sessions go with it (a statement waiting on the lock would otherwise run once it is released).
      await stack.services.db.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO outbox_acks%'`,
      );
    } finally {
      await lock.release();
    }
    expect(receiver.requests).toHaveLength(0);

    await stack.startWorker();
    const arrived = await settled(ids);
    expect(ids.filter((id) => arrived.get(id) !== 1)).toEqual([]);
    const { rows } = await stack.services.db.query<{ publications: number; acks: number; deliveries: number }>(
      `SELECT e.publications,
              (SELECT count(*)::int FROM outbox_acks a WHERE a.event_id = e.id) AS acks,
              (SELECT count(*)::int FROM webhook_deliveries d WHERE d.event_id = e.id) AS deliveries
         FROM outbox_events e WHERE e.id = ANY ($1::uuid[])`,
      [ids],
    );
    // One acknowledgement and one delivery each; those the dead worker had published were published again.
    expect(rows.every((row) => row.acks === 1 && row.deliveries === 1)).toBe(true);
    const { rows: again } = await stack.services.db.query<{ publications: number }>(
      'SELECT publications FROM outbox_events WHERE id = ANY ($1::uuid[])',
      [published],
    );
    expect(again.length).toBeGreaterThan(0);
    expect(again.every((row) => row.publications >= 2)).toBe(true);
    expect(receiver.requests).toHaveLength(ids.length);
  }, 240_000);

  it('published, worker killed while its session lives on and commits the acknowledgement: each event arrives once', async () => {
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
    // The orphaned sessions' statements commit the deliveries and the acknowledgements, with no worker left to enqueue them.
    await stack.eventually(
      'the orphaned statements committed',
      async () =>
        (await stack.services.db.query('SELECT 1 FROM outbox_acks WHERE event_id = ANY ($1::uuid[])', [published])).rowCount ===
        published.length,
      30_000,
    );
    await stack.startWorker();
    const arrived = await settled(ids);
    expect(ids.filter((id) => arrived.get(id) !== 1)).toEqual([]);
    expect(receiver.requests.length - before).toBe(ids.length);
  }, 240_000);
});
