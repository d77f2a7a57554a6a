import { randomUUID } from 'node:crypto';
import { EventBus, ofType } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { OutboxRelay, StoreEvent, StoreEventSubscribers } from '@app/core';
import { NotificationRepository, STOCK_NOTIFICATIONS } from '@app/notifications';
import { DispatchWebhookHandler, WEBHOOK_DISPATCH } from '@app/webhooks';
import { WebhookReceiver } from './fakes/webhook-receiver.js';
import { merchantWithStore, startApp, type TestApp } from './support/app.js';
import { createPrivateDatabase, SYSTEM_DATA_SOURCE } from './support/database.js';
import { until } from './support/wait.js';

/** Short enough for the tests to wait for a republication, long enough for a busy machine to acknowledge in time. */
const ACK_TIMEOUT_MS = 2000;

interface OwedAck {
  subscriber: string;
  publications: number;
  due_at: Date;
}

interface OutboxState {
  dispatched: boolean;
  /** The acknowledgements the event is still owed (by subscriber name), from `outbox_owed_acks`. */
  owed: OwedAck[];
}

/**
 * Store events on the EventBus, at least once: the relay publishes each committed event; the webhook
 * dispatch saga and the out-of-stock notifications acknowledge each publication in the statement that
 * does their work; events a subscriber has not acknowledged within OUTBOX_ACK_TIMEOUT_MS are published
 * again, to that subscriber only. Each subscriber's work happens once per event whatever fails.
 */
describe('store events acknowledged by their subscribers', () => {
  let api: TestApp;
  // A database of its own: e2e files run two at a time, and another file's relay on a shared
  // database could publish this file's events on its own bus (or this relay theirs).
  let database: Awaited<ReturnType<typeof createPrivateDatabase>>;
  let receiver: WebhookReceiver;
  let base: string;
  let owner: { token: string; storeId: string };
  const db = () => api.app.get<DataSource>(SYSTEM_DATA_SOURCE);
  /** Every StoreEvent published on this app's bus: the envelope id and whom it was for. */
  const published: { id: string; event: string; republishedFor: readonly string[] | null }[] = [];

  const state = async (eventId: string): Promise<OutboxState> => {
    const [event] = await db().query(
      'SELECT dispatched_at IS NOT NULL AS dispatched FROM outbox_events WHERE id = $1',
      [eventId],
    );
    const owed: OwedAck[] = await db().query(
      'SELECT subscriber, publications, due_at FROM outbox_owed_acks ' +
        'WHERE $1::uuid = ANY (event_ids) ORDER BY subscriber',
      [eventId],
    );
    return { dispatched: event.dispatched, owed };
  };
  const owedBy = (row: OutboxState) => row.owed.map((ack) => ack.subscriber);
  /** The event of `kind` whose data names `field` = `value`. */
  const eventId = (kind: string, field: string, value: string) =>
    until(async () => {
      const rows = await db().query(`SELECT id FROM outbox_events WHERE event = $1 AND data->>$2 = $3`, [
        kind,
        field,
        value,
      ]);
      return rows[0]?.id as string | undefined;
    }, `the ${kind} event`);
  /** Waits until the relay has published the event and every subscriber has acknowledged it. */
  const finished = (id: string) =>
    until(
      async () => {
        const { dispatched, owed } = await state(id);
        return dispatched && owed.length === 0;
      },
      'the event owed nothing',
      30_000,
    );
  const metric = async (name: string, label: string) => {
    const text = await (await fetch(`${api.url}/metrics`)).text();
    const line = text.split('\n').find((row) => row.startsWith(`${name}{${label}}`));
    return line ? Number(line.split(' ').pop()) : 0;
  };
  const register = async (path: string, events: string[]) => {
    const result = await api.request('POST', '/functions/v1/webhooks/register', {
      token: owner.token,
      body: { store_id: owner.storeId, url: `${base}${path}`, events },
    });
    expect(result.status, JSON.stringify(result.body)).toBe(201);
  };
  const addCustomer = async (name: string) => {
    const created = await api.request('POST', `/functions/v1/stores/${owner.storeId}/customers`, {
      token: owner.token,
      body: { name, email: `${name.toLowerCase()}-${Date.now()}@example.com` },
    });
    expect(created.status).toBe(201);
    return created.body.customer.id as string;
  };

  beforeAll(async () => {
    receiver = new WebhookReceiver();
    base = await receiver.start();
    database = await createPrivateDatabase('event_acks');
    api = await startApp({
      DATABASE_URL: database.url,
      OUTBOX_RELAY: 'true',
      OUTBOX_SWEEP_INTERVAL_MS: '200',
      OUTBOX_ACK_TIMEOUT_MS: String(ACK_TIMEOUT_MS),
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      JOB_SWEEP_INTERVAL_MS: '1000',
      LOST_JOB_AFTER_MS: '2000',
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}acks:`,
    });
    api.app
      .get(EventBus)
      .pipe(ofType(StoreEvent))
      .subscribe((event) =>
        published.push({ id: event.envelope.id, event: event.envelope.event, republishedFor: event.republishedFor }),
      );
    owner = await merchantWithStore(api, 'Acknowledged store');
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await api?.close();
    await receiver?.stop();
    await database?.drop();
  });

  it('a dispatch handler that throws once: the event is published again and delivered exactly once', async () => {
    await register('/ok/throw-once', ['customer.created']);
    const dispatch = api.app.get(DispatchWebhookHandler);
    const execute = vi.spyOn(dispatch, 'execute').mockRejectedValueOnce(new Error('dispatch failed once'));
    const republishedBefore = await metric('store_events_republished_total', 'subscriber="webhooks"');

    const customerId = await addCustomer('Once');
    const id = await eventId('customer.created', 'customer_id', customerId);
    await until(
      () => receiver.to('/ok/throw-once').some((request) => JSON.parse(request.body).id === id),
      'the delivery',
      30_000,
    );
    await finished(id);

    expect(receiver.to('/ok/throw-once').map((request) => JSON.parse(request.body).id)).toEqual([id]);
    expect(await state(id)).toEqual({ dispatched: true, owed: [] });
    // The worker records the attempt just after the receiver answered.
    const deliveries = () => db().query('SELECT status FROM webhook_deliveries WHERE event_id = $1', [id]);
    await until(async () => (await deliveries())[0]?.status === 'succeeded', 'the attempt recorded');
    expect(await deliveries()).toEqual([{ status: 'succeeded' }]);
    // The first run threw; the republication, for the dispatch alone, ran it again.
    expect(await execute.mock.results[0].value.catch((error: Error) => error.message)).toBe('dispatch failed once');
    expect(published.filter((event) => event.id === id).map((event) => event.republishedFor)).toEqual([
      null,
      [WEBHOOK_DISPATCH.name],
    ]);
    expect(await metric('store_events_republished_total', 'subscriber="webhooks"')).toBe(republishedBefore + 1);
  });

  it(
    'merchant notifications: a product sold out is notified ' + 'once, also when the notification handler throws once',
    async () => {
      await register('/ok/stock', ['inventory.updated']);
      // The handler's statement fails once, inside its tracked work (as a database error would).
      const notify = vi
        .spyOn(api.app.get(NotificationRepository), 'addOutOfStock')
        .mockRejectedValueOnce(new Error('notify failed once'));
      const product = await api.request('POST', `/functions/v1/stores/${owner.storeId}/products`, {
        token: owner.token,
        body: { name: 'Last lamp', price: 40, status: 'active', inventory_quantity: 1 },
      });
      const productId = product.body.product.id as string;
      const order = await api.request('POST', `/functions/v1/stores/${owner.storeId}/orders`, {
        token: owner.token,
        body: { items: [{ product_id: productId, quantity: 1 }] },
      });
      expect(order.status).toBe(201);
      const id = await eventId('inventory.updated', 'product_id', productId);
      await finished(id);

      const notifications = await api.request('GET', `/functions/v1/notifications?store_id=${owner.storeId}`, {
        token: owner.token,
      });
      const soldOut = notifications.body.data.filter(
        (notification: { kind: string }) => notification.kind === 'inventory.out_of_stock',
      );
      expect(soldOut).toEqual([
        expect.objectContaining({
          store_id: owner.storeId,
          message: `"Last lamp" is out of stock (order ${order.body.order.order_number})`,
          data: {
            product_id: productId,
            product_name: 'Last lamp',
            reason: `order ${order.body.order.order_number}`,
            event_id: id,
          },
        }),
      ]);
      expect(notify).toHaveBeenCalledTimes(2);
      expect(await state(id)).toEqual({ dispatched: true, owed: [] });
      // Published again, and only for the notifications; the webhook got the event once.
      const republications = published.filter((event) => event.id === id && event.republishedFor !== null);
      expect(republications.length).toBeGreaterThanOrEqual(1);
      expect(republications.map((event) => event.republishedFor)).toEqual(
        republications.map(() => [STOCK_NOTIFICATIONS.name]),
      );
      expect(receiver.to('/ok/stock').filter((request) => JSON.parse(request.body).id === id)).toHaveLength(1);

      // Stock that was already 0, or is not 0 after the move, notifies nobody.
      const restock = await api.request('POST', `/functions/v1/products/${productId}/inventory`, {
        token: owner.token,
        body: { delta: 3 },
      });
      expect(restock.status).toBe(200);
      const restocked = await until(async () => {
        const rows = await db().query(
          `SELECT id FROM outbox_events WHERE event = 'inventory.updated' ` +
            `AND data->>'product_id' = $1 AND data->>'delta' = '3'`,
          [productId],
        );
        return rows[0]?.id as string | undefined;
      }, 'the restock event');
      await finished(restocked);
      const after = await api.request('GET', `/functions/v1/notifications?store_id=${owner.storeId}`, {
        token: owner.token,
      });
      expect(
        after.body.data.filter((notification: { kind: string }) => notification.kind === 'inventory.out_of_stock'),
      ).toHaveLength(1);
    },
  );

  it("a subscriber's acknowledgement ends its own debt at once, not another subscriber's", async () => {
    const relay = api.app.get(OutboxRelay);
    const subscribers = api.app.get(StoreEventSubscribers);
    await relay.stop();
    try {
      // With the relay stopped, nothing publishes or sweeps but the calls below.
      const customerId = await addCustomer('Settled');
      const settled = await eventId('customer.created', 'customer_id', customerId);
      const notify = vi
        .spyOn(api.app.get(NotificationRepository), 'addOutOfStock')
        .mockRejectedValueOnce(new Error('notify failed once'));
      const product = await api.request('POST', `/functions/v1/stores/${owner.storeId}/products`, {
        token: owner.token,
        body: { name: 'Owed lamp', price: 40, status: 'active', inventory_quantity: 2 },
      });
      const moved = await api.request('POST', `/functions/v1/products/${product.body.product.id}/inventory`, {
        token: owner.token,
        body: { delta: -1 },
      });
      expect(moved.status).toBe(200);
      const owed = await eventId('inventory.updated', 'product_id', product.body.product.id);

      expect(await relay.sweep()).toBeGreaterThanOrEqual(2);
      await subscribers.settled();

      // customer.created is owed by the webhook dispatch alone: its acknowledgement ended the debt.
      expect(await state(settled)).toEqual({ dispatched: true, owed: [] });
      // inventory.updated is owed by the notifications too, whose statement failed: that debt stays, due again later.
      const pending = await state(owed);
      expect(pending.dispatched).toBe(true);
      expect(owedBy(pending)).toEqual([STOCK_NOTIFICATIONS.name]);
      expect(pending.owed[0].publications).toBe(1);
      expect(notify).toHaveBeenCalledTimes(1);
    } finally {
      await relay.start();
    }
  });

  it(
    'publishes again only to the subscribers that owe an acknowledgement, ' +
      'later each time; leaves what an unknown subscriber is owed',
    async () => {
      const relay = api.app.get(OutboxRelay);
      await relay.stop();
      // The subscribers fail while this test looks at the deadlines: an acknowledgement ends its debt at
      // once (the test above), which would race with the reads below.
      const held = new Error('held while the test reads the deadlines');
      const dispatch = vi.spyOn(api.app.get(DispatchWebhookHandler), 'execute').mockRejectedValue(held);
      const notify = vi.spyOn(api.app.get(NotificationRepository), 'addOutOfStock').mockRejectedValue(held);
      try {
        // Events published long ago, as a relay that died would leave them, with what each publication is owed.
        const insert = async (kind: string, data: object, owedBy: string[], publications: number) => {
          const [{ id }] = await db().query(
            `INSERT INTO outbox_events (store_id, event, data, dispatched_at) ` +
              `VALUES ($1, $2, $3, now() - interval '1 minute') RETURNING id`,
            [owner.storeId, kind, JSON.stringify(data)],
          );
          const publication = randomUUID();
          for (const subscriber of owedBy) {
            await db().query(
              `INSERT INTO outbox_owed_acks (publication_id, subscriber, event_ids, due_at, publications)
             VALUES ($1, $2, ARRAY[$3::uuid], now() - interval '1 second', $4)`,
              [publication, subscriber, id, publications],
            );
          }
          return id as string;
        };
        const stock = {
          product_id: '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d',
          previous_quantity: 2,
          quantity: 1,
          delta: -1,
          reason: null,
        };
        const customer = {
          customer_id: '3c2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a98',
          name: 'Owed',
          email: 'owed@example.com',
        };
        const notificationsOwe = await insert('inventory.updated', stock, ['notifications'], 1);
        const bothOwe = await insert('inventory.updated', stock, ['notifications', 'webhooks'], 3);
        // A subscriber no process registers (renamed, say): the relay leaves its debt alone.
        const unknownOwed = await insert('customer.created', customer, ['renamed-subscriber'], 1);
        const from = published.length;

        const count = await relay.republishOverdue();

        // (Events of the tests above may be overdue too: only these are looked at.)
        const mine = [notificationsOwe, bothOwe, unknownOwed];
        const republished = published.slice(from).filter(({ id }) => mine.includes(id));
        expect(count).toBeGreaterThanOrEqual(3);
        expect(republished.map(({ id, republishedFor }) => [id, republishedFor]).sort()).toEqual(
          [
            [notificationsOwe, ['notifications']],
            [bothOwe, ['notifications']],
            [bothOwe, ['webhooks']],
          ].sort(),
        );
        const [owed, twice, unknown] = await Promise.all(mine.map(state));
        expect(owed.owed.map((ack) => [ack.subscriber, ack.publications])).toEqual([['notifications', 2]]);
        expect(twice.owed.map((ack) => [ack.subscriber, ack.publications])).toEqual([
          ['notifications', 4],
          ['webhooks', 4],
        ]);
        expect(unknown.owed.map((ack) => [ack.subscriber, ack.publications])).toEqual([['renamed-subscriber', 1]]);
        // The next deadline doubles with each publication: 2 × and 8 × the timeout from now.
        const ahead = async (at: Date) => at.getTime() - (await db().query('SELECT now() AS now'))[0].now.getTime();
        expect(await ahead(owed.owed[0].due_at)).toBeGreaterThan(2 * ACK_TIMEOUT_MS - 1000);
        expect(await ahead(owed.owed[0].due_at)).toBeLessThanOrEqual(2 * ACK_TIMEOUT_MS);
        for (const ack of twice.owed) {
          expect(await ahead(ack.due_at)).toBeGreaterThan(8 * ACK_TIMEOUT_MS - 1000);
          expect(await ahead(ack.due_at)).toBeLessThanOrEqual(8 * ACK_TIMEOUT_MS);
        }
        expect(await ahead(unknown.owed[0].due_at)).toBeLessThan(0);
        // Not overdue any more: a second pass publishes none of them.
        const again = published.length;
        await relay.republishOverdue();
        expect(published.slice(again).filter(({ id }) => mine.includes(id))).toEqual([]);
        await db().query('DELETE FROM outbox_owed_acks WHERE event_ids && $1::uuid[]', [mine]);
        await db().query('DELETE FROM outbox_events WHERE id = ANY ($1::uuid[])', [mine]);
      } finally {
        dispatch.mockRestore();
        notify.mockRestore();
        await relay.start();
      }
    },
  );

  it('counts first publications per event kind in Prometheus (best effort), not republications', async () => {
    const before = await metric('store_events_published_total', 'event="customer.created"');
    const ids = await Promise.all(
      ['Ann', 'Bob'].map(async (name) => eventId('customer.created', 'customer_id', await addCustomer(name))),
    );
    // Acknowledged by the dispatch: published by this app's relay.
    await until(
      async () => (await Promise.all(ids.map(state))).every((row) => row.dispatched && row.owed.length === 0),
      'both acknowledged',
    );
    expect(await metric('store_events_published_total', 'event="customer.created"')).toBe(before + 2);
  });
});
