import { DataSource } from 'typeorm';
import { OutboxRetention, outboxConfig } from '@app/core';
import { DeliveryRetention, webhooksConfig } from '@app/webhooks';
import { merchantWithStore, startApp, type TestApp } from './support/app.js';
import { createPrivateDatabase, SYSTEM_DATA_SOURCE } from './support/database.js';
import { until } from './support/wait.js';

const EVENT = 'retention.test';

/**
 * Retention: the workers delete dispatched outbox events older than OUTBOX_RETENTION_DAYS (unless a
 * subscriber still owes an acknowledgement) and
 * finished webhook deliveries (with their attempts) older than DELIVERY_RETENTION_DAYS, in bounded
 * batches, and nothing else. The app under test serves HTTP only (APP_ROLE api), so no sweep runs
 * unless a test calls it; the last test boots a worker and watches it sweep on its own.
 */
describe('retention', () => {
  let api: TestApp;
  // A database of this file's own: every app another file boots (APP_ROLE all) sweeps at its start, and
  // on the shared database such a sweep could take this file's old events before the sweep under test.
  let database: Awaited<ReturnType<typeof createPrivateDatabase>>;
  let store: { token: string; storeId: string };
  let webhookId: string;
  const db = () => api.app.get<DataSource>(SYSTEM_DATA_SOURCE);

  /** `count` events of the store, dispatched `dispatchedDaysAgo` days ago (null: not yet); answers their ids. */
  const insertEvents = async (
    count: number,
    dispatchedDaysAgo: number | null,
    createdDaysAgo = dispatchedDaysAgo ?? 0,
  ) =>
    (
      await db().query(
        `INSERT INTO outbox_events (store_id, event, data, created_at, dispatched_at)
         SELECT $1, $2, '{}', now() - make_interval(days => $3), now() - make_interval(days => $4)
           FROM generate_series(1, $5)
         RETURNING id`,
        [store.storeId, EVENT, createdDaysAgo, dispatchedDaysAgo, count],
      )
    ).map((row: { id: string }) => row.id);
  const remaining = async (ids: string[]) =>
    Number((await db().query('SELECT count(*) FROM outbox_events WHERE id = ANY ($1::uuid[])', [ids]))[0].count);

  /** A delivery of the test webhook, last changed `daysAgo` days ago, with `attempts` attempts. */
  const insertDelivery = async (
    status: string,
    daysAgo: number,
    options: { redeliveryOf?: string; attempts?: number } = {},
  ) => {
    const [delivery] = await db().query(
      `INSERT INTO webhook_deliveries (webhook_id, store_id, event_id, event, body, status, attempt_count,
        next_attempt_at,
                                       redelivery_of, created_at, updated_at)
       VALUES ($1, $2, coalesce((SELECT event_id FROM webhook_deliveries WHERE id = $5), gen_random_uuid()),
         'order.paid', '{}', $3,
               $6, CASE WHEN $3 = 'pending' THEN now() + interval '1 hour' END, $5,
               date_trunc('milliseconds', now() - make_interval(days => $4)), now() - make_interval(days => $4))
       RETURNING id`,
      [webhookId, store.storeId, status, daysAgo, options.redeliveryOf ?? null, options.attempts ?? 1],
    );
    await db().query(
      `INSERT INTO webhook_attempts (delivery_id, store_id, attempt, started_at, duration_ms, status_code)
       SELECT $1, $2, a, now() - make_interval(days => $3), 20, 200 FROM generate_series(1, $4) a`,
      [delivery.id, store.storeId, daysAgo, options.attempts ?? 1],
    );
    return delivery.id as string;
  };
  const existing = async (ids: string[]) =>
    (await db().query('SELECT id FROM webhook_deliveries WHERE id = ANY ($1::uuid[])', [ids])).map(
      (row: { id: string }) => row.id,
    );

  beforeAll(async () => {
    database = await createPrivateDatabase('retention');
    api = await startApp({
      DATABASE_URL: database.url,
      APP_ROLE: 'api',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
    });
    store = await merchantWithStore(api, 'Retention store');
    const registered = await api.request('POST', '/functions/v1/webhooks/register', {
      token: store.token,
      body: { store_id: store.storeId, url: 'http://127.0.0.1:9/retention', events: ['order.paid'] },
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    webhookId = registered.body.webhook.id;
  });
  afterAll(async () => {
    // Nothing of this file is left for a later file's relay or delivery worker to pick up.
    await db().query('DELETE FROM outbox_events WHERE store_id = $1', [store.storeId]);
    await db().query('DELETE FROM webhooks WHERE id = $1', [webhookId]);
    await api.close();
    await database?.drop();
  });

  it('deletes events dispatched over OUTBOX_RETENTION_DAYS (30) ago, in batches; keeps newer ones', async () => {
    expect(api.settings.get(outboxConfig).OUTBOX_RETENTION_DAYS).toBe(30);
    const old = await insertEvents(2500, 31);
    const recent = await insertEvents(3, 29);
    // Created long ago but never dispatched: the relay still owes it, whatever its age.
    const undispatched = await insertEvents(3, null, 40);

    const batches = await api.app.get(OutboxRetention).prune(1000);

    expect(batches.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...batches)).toBeLessThanOrEqual(1000);
    expect(batches.reduce((sum, count) => sum + count, 0)).toBeGreaterThanOrEqual(2500);
    expect(await remaining(old)).toBe(0);
    expect(await remaining(recent)).toBe(3);
    expect(await remaining(undispatched)).toBe(3);
    // What is kept is what the store's events listing serves: the 29-day-old events are still there.
    const since = new Date(Date.now() - 30 * 24 * 3600 * 1000).toISOString();
    const listed = await api.request('GET', `/functions/v1/stores/${store.storeId}/events?since=${since}&limit=100`, {
      token: store.token,
    });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((event: { id: string }) => event.id)).toEqual(expect.arrayContaining(recent));
    expect(listed.body.data.some((event: { id: string }) => old.includes(event.id))).toBe(false);
  });

  it(
    'keeps an old event a subscriber has not acknowledged, ' + 'and what it is owed; deletes an old finished one',
    async () => {
      const [owed, done] = [await insertEvents(1, 31), await insertEvents(1, 31)];
      await db().query(
        `INSERT INTO outbox_owed_acks (publication_id, subscriber, event_ids, due_at, publications)
       VALUES (gen_random_uuid(), 'webhooks', ARRAY[$1::uuid], now() + interval '1 minute', 5)`,
        [owed[0]],
      );

      await api.app.get(OutboxRetention).prune(1000);

      expect(await remaining(owed)).toBe(1);
      expect(await remaining(done)).toBe(0);
      const debts = await db().query(
        'SELECT subscriber, publications FROM outbox_owed_acks WHERE $1::uuid = ANY (event_ids)',
        [owed[0]],
      );
      expect(debts).toEqual([{ subscriber: 'webhooks', publications: 5 }]);
      await db().query('DELETE FROM outbox_owed_acks WHERE $1::uuid = ANY (event_ids)', [owed[0]]);
    },
  );

  it('lets sweeps of several workers run at once: each row goes once, none waits on another', async () => {
    const old = await insertEvents(3000, 32);
    const retention = api.app.get(OutboxRetention);
    const sweeps = await Promise.all([retention.prune(200), retention.prune(200), retention.prune(200)]);
    const all = sweeps.flat();
    expect(Math.max(...all)).toBeLessThanOrEqual(200);
    expect(all.reduce((sum, count) => sum + count, 0)).toBeGreaterThanOrEqual(3000);
    expect(await remaining(old)).toBe(0);
  });

  it(
    'deletes finished deliveries older than DELIVERY_RETENTION_DAYS ' +
      'with their attempts; keeps pending, newer and redelivered ones',
    async () => {
      expect(api.settings.get(webhooksConfig).DELIVERY_RETENTION_DAYS).toBe(30);
      const oldSucceeded = await insertDelivery('succeeded', 31, { attempts: 3 });
      const oldCancelled = await insertDelivery('cancelled', 45);
      const recent = await insertDelivery('succeeded', 29);
      const oldPending = await insertDelivery('pending', 40);
      // An old failure redelivered recently: the original stays while its redelivery does.
      const redelivered = await insertDelivery('failed', 40);
      const recentRedelivery = await insertDelivery('succeeded', 1, { redeliveryOf: redelivered });
      // An old failure redelivered twice, long ago: all three go (redeliveries first, then the original).
      const twiceRedelivered = await insertDelivery('failed', 60);
      const firstRedelivery = await insertDelivery('failed', 50, { redeliveryOf: twiceRedelivered });
      const secondRedelivery = await insertDelivery('succeeded', 45, { redeliveryOf: twiceRedelivered });
      const all = [
        oldSucceeded,
        oldCancelled,
        recent,
        oldPending,
        redelivered,
        recentRedelivery,
        twiceRedelivered,
        firstRedelivery,
        secondRedelivery,
      ];

      const batches = await api.app.get(DeliveryRetention).prune(2);

      expect(Math.max(...batches)).toBeLessThanOrEqual(2);
      expect((await existing(all)).sort()).toEqual([recent, oldPending, redelivered, recentRedelivery].sort());
      const attempts = await db().query('SELECT count(*) FROM webhook_attempts WHERE delivery_id = ANY ($1::uuid[])', [
        [oldSucceeded, twiceRedelivered, firstRedelivery, secondRedelivery],
      ]);
      expect(Number(attempts[0].count)).toBe(0);
      // What the merchant still sees: the kept deliveries, with their attempts.
      const log = await api.request('GET', `/functions/v1/webhooks/${webhookId}/deliveries?limit=100`, {
        token: store.token,
      });
      expect(log.status).toBe(200);
      expect(log.body.data.map((delivery: { id: string }) => delivery.id).sort()).toEqual(
        [recent, oldPending, redelivered, recentRedelivery].sort(),
      );
      expect(log.body.data.every((delivery: { attempts: unknown[] }) => delivery.attempts.length === 1)).toBe(true);
    },
  );

  it('keeps everything while a retention is 0', async () => {
    const old = await insertEvents(5, 400);
    const oldDelivery = await insertDelivery('succeeded', 400);
    const [outbox, webhooks] = [api.settings.get(outboxConfig), api.settings.get(webhooksConfig)];
    const before = [outbox.OUTBOX_RETENTION_DAYS, webhooks.DELIVERY_RETENTION_DAYS];
    outbox.OUTBOX_RETENTION_DAYS = 0;
    webhooks.DELIVERY_RETENTION_DAYS = 0;
    try {
      expect(await api.app.get(OutboxRetention).prune()).toEqual([]);
      expect(await api.app.get(DeliveryRetention).prune()).toEqual([]);
    } finally {
      [outbox.OUTBOX_RETENTION_DAYS, webhooks.DELIVERY_RETENTION_DAYS] = before;
    }
    expect(await remaining(old)).toBe(5);
    expect(await existing([oldDelivery])).toEqual([oldDelivery]);
  });

  it('is swept by a worker on its own, from its start', async () => {
    const old = await insertEvents(20, 31);
    const oldDelivery = await insertDelivery('failed', 31);
    const worker = await startApp({ DATABASE_URL: database.url, APP_ROLE: 'all' });
    try {
      await until(
        async () => (await remaining(old)) === 0 && (await existing([oldDelivery])).length === 0,
        "the worker's first sweep",
      );
    } finally {
      await worker.close();
    }
    expect(await remaining(old)).toBe(0);
    expect(await existing([oldDelivery])).toEqual([]);
  });
});
