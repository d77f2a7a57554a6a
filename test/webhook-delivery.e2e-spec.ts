import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';
import { OutboxRelay, StoreEventSubscribers } from '@app/core';
import { DeliveryQueue, webhooksConfig } from '@app/webhooks';
import { WebhookReceiver, type ReceivedRequest } from './fakes/webhook-receiver.js';
import { merchantWithStore, startApp, type TestApp } from './support/app.js';
import { createPrivateDatabase, SYSTEM_DATA_SOURCE } from './support/database.js';
import { until } from './support/wait.js';

/** Long enough for a receiver on 127.0.0.1 to answer on a busy machine; the `hang` receiver never does. */
const TIMEOUT_MS = 2000;
/**
 * A request enqueues its delivery's first attempt 200 ms ahead, before its transaction commits; on a
 * busy machine the attempt may run first, find nothing, and leave the delivery to the lost-job sweep,
 * as in production. Here the sweep comes within seconds rather than after a minute.
 */
const SWEEP_SOON = { JOB_SWEEP_INTERVAL_MS: '1000', LOST_JOB_AFTER_MS: '2000' };

/** What a receiver does: check X-Service-Signature with node's crypto, in constant time. */
function serviceSignatureValid(request: ReceivedRequest, secret: string): boolean {
  const expected = Buffer.from(createHmac('sha256', secret).update(request.body).digest('hex'));
  const given = Buffer.from(String(request.headers['x-service-signature'] ?? ''));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** And the Standard Webhooks way, with the `standardwebhooks` package (throws when invalid). */
function verifyStandard(request: ReceivedRequest, secret: string): unknown {
  const webhook = secret.startsWith('whsec_') ? new Webhook(secret) : new Webhook(secret, { format: 'raw' });
  return webhook.verify(request.body, request.headers as Record<string, string>);
}

/**
 * Store events reach webhooks as signed POSTs: through the outbox relay, the webhook dispatch and
 * the delivery worker, against a real receiver on 127.0.0.1, with a compressed retry schedule.
 */
describe('webhook deliveries', () => {
  let api: TestApp;
  let database: Awaited<ReturnType<typeof createPrivateDatabase>>;
  let receiver: WebhookReceiver;
  let base: string;
  let owner: { token: string; storeId: string };
  const db = () => api.app.get<DataSource>(SYSTEM_DATA_SOURCE);

  const register = async (path: string, events: string[], secret?: string) => {
    const result = await api.request('POST', '/functions/v1/webhooks/register', {
      token: owner.token,
      body: { store_id: owner.storeId, url: `${base}${path}`, events, ...(secret ? { secret } : {}) },
    });
    expect(result.status, JSON.stringify(result.body)).toBe(201);
    return { id: result.body.webhook.id as string, secret: (secret ?? result.body.secret) as string };
  };
  const product = async (stock = 100) =>
    (
      await api.request('POST', `/functions/v1/stores/${owner.storeId}/products`, {
        token: owner.token,
        body: { name: 'Delivered mug', price: 12.5, inventory_quantity: stock, status: 'active' },
      })
    ).body.product.id as string;
  const placeOrder = async (productId: string) =>
    (
      await api.request('POST', `/functions/v1/stores/${owner.storeId}/orders`, {
        token: owner.token,
        body: { items: [{ product_id: productId, quantity: 2 }] },
      })
    ).body.order;
  const move = (orderId: string, status: string) =>
    api.request('PATCH', `/functions/v1/orders/${orderId}`, { token: owner.token, body: { status } });
  const webhookRow = async (id: string) =>
    (await db().query('SELECT status, disabled_reason FROM webhooks WHERE id = $1', [id]))[0];
  /**
   * Waits until nothing more can reach the receiver for these stores: every event of theirs
   * acknowledged by the webhook dispatch (its deliveries written in the same statement) and every
   * delivery finished. A delivery is marked only after its POST was answered, so what the receiver
   * holds then is all it will get.
   */
  const settled = (...storeIds: string[]) =>
    until(async () => {
      const [row] = await db().query(
        `SELECT (SELECT count(*)::int FROM outbox_events e WHERE store_id = ANY ($1::uuid[])
                   AND (dispatched_at IS NULL
                        OR EXISTS (SELECT 1 FROM outbox_owed_acks o WHERE o.subscriber = 'webhooks'
                          AND e.id = ANY (o.event_ids)))) AS unacknowledged,
                (SELECT count(*)::int FROM webhook_deliveries WHERE store_id = ANY ($1::uuid[]) AND status = 'pending')
                  AS pending`,
        [storeIds],
      );
      return row.unacknowledged === 0 && row.pending === 0;
    }, 'every event acknowledged by the webhook dispatch and every delivery finished');

  beforeAll(async () => {
    receiver = new WebhookReceiver();
    base = await receiver.start();
    // A database of its own: its relay publishes every event of the database it listens on, and another
    // file's relay on the shared one would take this file's events (and this one theirs).
    database = await createPrivateDatabase('webhook_deliveries');
    api = await startApp({
      DATABASE_URL: database.url,
      OUTBOX_RELAY: 'true',
      OUTBOX_SWEEP_INTERVAL_MS: '600000',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_RETRY_DELAYS_MS: '0,150,150,150,150',
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      ...SWEEP_SOON,
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}deliveries:`,
    });
    owner = await merchantWithStore(api, 'Webhook store');
  });
  afterAll(async () => {
    await api?.close();
    await receiver?.stop();
    await database?.drop();
  });

  it('an order moved through its states delivers exactly the subscribed events, signed both ways', async () => {
    const hook = await register('/ok/orders', ['order.created', 'order.paid', 'order.shipped']);
    const productId = await product();
    const order = await placeOrder(productId);
    expect((await move(order.id, 'paid')).status).toBe(200);
    expect((await move(order.id, 'shipped')).status).toBe(200);

    await settled(owner.storeId);
    const received = receiver.to('/ok/orders');
    expect(received).toHaveLength(3);
    const bodies = received.map((request) => JSON.parse(request.body));
    expect(bodies.map((body) => body.event)).toEqual(['order.created', 'order.paid', 'order.shipped']);
    expect(bodies[1]).toMatchObject({
      store_id: owner.storeId,
      event: 'order.paid',
      data: {
        order_id: order.id,
        order_number: order.order_number,
        total: 25,
        currency: 'USD',
        status: 'paid',
        customer: null,
        items: [{ product_id: productId, name: 'Delivered mug', quantity: 2, price: 12.5 }],
      },
    });
    for (const request of received) {
      expect(request.headers['content-type']).toBe('application/json');
      expect(serviceSignatureValid(request, hook.secret)).toBe(true);
      expect(verifyStandard(request, hook.secret)).toEqual(JSON.parse(request.body));
      expect(request.headers['webhook-id']).toBe(JSON.parse(request.body).id);
      expect(request.headers['x-service-event']).toBe(JSON.parse(request.body).event);
      expect(request.headers['x-service-attempt']).toBe('1');
      expect(request.headers['x-service-delivery']).toMatch(/^[0-9a-f-]{36}$/);
      expect(serviceSignatureValid({ ...request, body: request.body.replace('"', ' "') }, hook.secret)).toBe(false);
    }
    const log = await api.request('GET', `/functions/v1/webhooks/${hook.id}/deliveries`, { token: owner.token });
    expect(log.body.data.map((d: { status: string }) => d.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(log.body.data[0].attempts[0]).toMatchObject({
      attempt: 1,
      status_code: 200,
      error: null,
      response_excerpt: 'thanks',
    });
  });

  it('a republished outbox row delivers nothing twice', async () => {
    await register('/ok/once', ['product.created']);
    const productId = await product();
    await until(() => receiver.to('/ok/once').length === 1, 'the first delivery');
    await db().query(
      `UPDATE outbox_events SET dispatched_at = NULL WHERE event = 'product.created' AND data->>'product_id' = $1`,
      [productId],
    );
    expect(await api.app.get(OutboxRelay).sweep()).toBeGreaterThanOrEqual(1);
    // Once the subscribers' work for what the sweep published has ended, whatever the republished row was to cause is
    // written.
    await api.app.get(StoreEventSubscribers).settled();
    await settled(owner.storeId);
    expect(receiver.to('/ok/once')).toHaveLength(1);
    const [{ count }] = await db().query(
      `SELECT count(*)::int AS count FROM webhook_deliveries d JOIN ` +
        `webhooks w ON w.id = d.webhook_id WHERE w.url LIKE '%/ok/once'`,
    );
    expect(count).toBe(1);
  });

  it("one relay batch with events of two stores delivers each to its own store's webhooks only", async () => {
    const other = await merchantWithStore(api, 'Other webhook store');
    await register('/ok/batch-a', ['customer.created']);
    const otherHook = await api.request('POST', '/functions/v1/webhooks/register', {
      token: other.token,
      body: { store_id: other.storeId, url: `${base}/ok/batch-b`, events: ['customer.created'] },
    });
    expect(otherHook.status).toBe(201);
    const relay = api.app.get(OutboxRelay);
    await relay.stop();
    try {
      const customer = (who: { token: string; storeId: string }, name: string) =>
        api.request('POST', `/functions/v1/stores/${who.storeId}/customers`, {
          token: who.token,
          body: { name, email: `${name.toLowerCase()}@example.com` },
        });
      for (const [who, name] of [
        [owner, 'Ada'],
        [other, 'Bea'],
        [owner, 'Cy'],
      ] as const) {
        expect((await customer(who, name)).status).toBe(201);
      }
      expect(await relay.sweep()).toBeGreaterThanOrEqual(3);
    } finally {
      await relay.start();
    }
    await settled(owner.storeId, other.storeId);
    const names = (path: string) => receiver.to(path).map((request) => JSON.parse(request.body));
    // Attempts run in parallel: arrival order is not part of the contract.
    expect(
      names('/ok/batch-a')
        .map((body) => [body.store_id, body.data.name])
        .sort(),
    ).toEqual([
      [owner.storeId, 'Ada'],
      [owner.storeId, 'Cy'],
    ]);
    expect(names('/ok/batch-b').map((body) => [body.store_id, body.data.name])).toEqual([[other.storeId, 'Bea']]);
  });

  it.each([
    ['500', '/fail/hook', 'Receiver answered 500'],
    ['a timeout', '/hang/hook', `No answer within ${TIMEOUT_MS} ms`],
    ['a redirect', '/redirect/hook', 'Redirect (302) not followed'],
  ])('%s is retried on the schedule, then the webhook is disabled with a notification', async (_, path, error) => {
    const hook = await register(path, ['product.created']);
    await product();
    await until(
      async () => (await webhookRow(hook.id)).status === 'disabled',
      'the webhook to be disabled',
      5 * TIMEOUT_MS + 15_000,
    );
    const attempts = receiver.to(path);
    expect(attempts).toHaveLength(5);
    expect(attempts.map((request) => request.headers['x-service-attempt'])).toEqual(['1', '2', '3', '4', '5']);
    for (let i = 1; i < attempts.length; i++) expect(attempts[i].at - attempts[i - 1].at).toBeGreaterThanOrEqual(140);
    expect(new Set(attempts.map((request) => request.headers['webhook-id'])).size).toBe(1);
    if (path.startsWith('/redirect')) expect(receiver.to('/ok/redirected')).toHaveLength(0);
    expect((await webhookRow(hook.id)).disabled_reason).toContain(error);

    const log = await api.request('GET', `/functions/v1/webhooks/${hook.id}/deliveries`, { token: owner.token });
    const delivery = log.body.data[0];
    expect(delivery).toMatchObject({ status: 'failed', attempt_count: 5 });
    expect(delivery.attempts.map((a: { attempt: number }) => a.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(delivery.attempts[0].error).toContain(error);
    expect(delivery.attempts[0].next_attempt_at).not.toBeNull();
    expect(delivery.attempts[4].next_attempt_at).toBeNull();
    if (path.startsWith('/fail')) expect(delivery.attempts[0].response_excerpt.length).toBeLessThanOrEqual(2048);

    const notices = await api.request('GET', `/functions/v1/notifications?store_id=${owner.storeId}`, {
      token: owner.token,
    });
    expect(
      notices.body.data.filter(
        (n: { kind: string; data: { webhook_id: string } }) =>
          n.kind === 'webhook.disabled' && n.data.webhook_id === hook.id,
      ),
    ).toHaveLength(1);
  });

  it(
    '410 Gone disables the webhook at once and stops ' + 'its pending deliveries; re-enabling resumes new ones',
    async () => {
      const hook = await register('/gone/hook', ['product.created', 'product.updated']);
      const productId = await product();
      await until(async () => (await webhookRow(hook.id)).status === 'disabled', 'the webhook to be disabled');
      expect(receiver.to('/gone/hook')).toHaveLength(1);
      expect((await webhookRow(hook.id)).disabled_reason).toBe('The receiver answered 410 Gone');

      // While disabled, new events are recorded as skipped deliveries, and nothing is sent.
      await api.request('PATCH', `/functions/v1/products/${productId}`, {
        token: owner.token,
        body: { name: 'Renamed while disabled' },
      });
      await settled(owner.storeId);
      const logged = 'SELECT event, status FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY created_at';
      const rows = await db().query(logged, [hook.id]);
      expect(rows).toEqual([
        { event: 'product.created', status: 'failed' },
        { event: 'product.updated', status: 'skipped' },
      ]);
      expect(receiver.to('/gone/hook')).toHaveLength(1);

      const enabled = await api.request('PATCH', `/functions/v1/webhooks/${hook.id}`, {
        token: owner.token,
        body: { status: 'active', url: `${base}/ok/again` },
      });
      expect(enabled.body.webhook).toMatchObject({ status: 'active', disabled_reason: null });
      await api.request('PATCH', `/functions/v1/products/${productId}`, {
        token: owner.token,
        body: { name: 'Renamed after' },
      });
      const [again] = await until(
        () => (receiver.to('/ok/again').length ? receiver.to('/ok/again') : null),
        'a delivery after re-enabling',
      );
      expect(JSON.parse(again.body)).toMatchObject({ event: 'product.updated', data: { name: 'Renamed after' } });
    },
  );

  it('after a rotation both the new and the old secret verify, for 24 hours', async () => {
    const hook = await register('/ok/rotated', ['product.created'], 'plain-secret-of-merchant');
    const rotated = await api.request('POST', `/functions/v1/webhooks/${hook.id}/rotate-secret`, {
      token: owner.token,
    });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.secret as string;
    expect(fresh).toMatch(/^whsec_/);
    await product();
    const [request] = await until(
      () => (receiver.to('/ok/rotated').length ? receiver.to('/ok/rotated') : null),
      'a delivery after rotation',
    );
    expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifyStandard(request, fresh)).toBeTruthy();
    expect(verifyStandard(request, 'plain-secret-of-merchant')).toBeTruthy();
    expect(serviceSignatureValid(request, fresh)).toBe(true);
    expect(() => verifyStandard(request, 'whsec_' + Buffer.from('someone else entirely').toString('base64'))).toThrow();

    // As if the rotation was longer ago: the time it was made set back in SQL (its end moves with it).
    const rotatedAgo = (interval: string) =>
      db().query(
        `UPDATE webhooks SET previous_secret_expires_at = clock_timestamp() ` +
          `+ interval '24 hours' - $2::interval WHERE id = $1`,
        [hook.id, interval],
      );
    const next = async (what: string) => {
      const count = receiver.to('/ok/rotated').length;
      await product();
      return (await until(() => receiver.to('/ok/rotated')[count], what)) as ReceivedRequest;
    };
    await rotatedAgo('23 hours 59 minutes');
    const lastMinute = await next('a delivery in the last minute of the overlap');
    expect(String(lastMinute.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifyStandard(lastMinute, 'plain-secret-of-merchant')).toBeTruthy();

    await rotatedAgo('24 hours 1 minute');
    const dayAfter = await next('a delivery after the overlap');
    expect(String(dayAfter.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifyStandard(dayAfter, fresh)).toBeTruthy();
    expect(serviceSignatureValid(dayAfter, fresh)).toBe(true);
    expect(() => verifyStandard(dayAfter, 'plain-secret-of-merchant')).toThrow();
  });

  it('a redelivery and a test event arrive, with the original event id for the redelivery', async () => {
    const hook = await register('/ok/redeliver', ['product.created']);
    await product();
    const [first] = await until(
      () => (receiver.to('/ok/redeliver').length ? receiver.to('/ok/redeliver') : null),
      'the first delivery',
    );
    const log = await api.request('GET', `/functions/v1/webhooks/${hook.id}/deliveries`, { token: owner.token });
    const redelivered = await api.request(
      'POST',
      `/functions/v1/webhooks/${hook.id}/deliveries/${log.body.data[0].id}/redeliver`,
      {
        token: owner.token,
      },
    );
    expect(redelivered.status).toBe(201);
    await until(() => receiver.to('/ok/redeliver').length === 2, 'the redelivery');
    const second = receiver.to('/ok/redeliver')[1];
    expect(second.body).toBe(first.body);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second.headers['x-service-delivery']).not.toBe(first.headers['x-service-delivery']);

    expect((await api.request('POST', `/functions/v1/webhooks/${hook.id}/test`, { token: owner.token })).status).toBe(
      201,
    );
    await until(() => receiver.to('/ok/redeliver').length === 3, 'the test event');
    expect(JSON.parse(receiver.to('/ok/redeliver')[2].body).event).toBe('webhook.test');
  });
});

/**
 * The production schedule itself (WEBHOOK_RETRY_DELAYS_MS unset), on the real queue: each failed
 * attempt leaves the next one in Bull, delayed 1, 5, 30 then 60 minutes, with the delivery's
 * next_attempt_at to match. The test does not wait those minutes: it promotes each delayed job, and
 * the worker runs it as it would have then.
 */
describe('webhook retries on the default schedule', () => {
  let api: TestApp;
  let receiver: WebhookReceiver;
  let base: string;
  const db = () => api.app.get<DataSource>(SYSTEM_DATA_SOURCE);

  beforeAll(async () => {
    receiver = new WebhookReceiver();
    base = await receiver.start();
    api = await startApp({
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}default-schedule:`,
      ...SWEEP_SOON,
    });
  });
  afterAll(async () => {
    await api?.close();
    await receiver?.stop();
  });

  it('a failing delivery is tried again after 1, 5, 30 and 60 minutes, then the webhook is disabled', async () => {
    expect(api.settings.get(webhooksConfig).WEBHOOK_RETRY_DELAYS_MS).toEqual([
      0, 60_000, 300_000, 1_800_000, 3_600_000,
    ]);
    const owner = await merchantWithStore(api, 'Default schedule store');
    const registered = await api.request('POST', '/functions/v1/webhooks/register', {
      token: owner.token,
      body: { store_id: owner.storeId, url: `${base}/fail/default-schedule`, events: ['product.created'] },
    });
    const hookId = registered.body.webhook.id as string;
    const sent = await api.request('POST', `/functions/v1/webhooks/${hookId}/test`, { token: owner.token });
    expect(sent.status).toBe(201);
    const deliveryId = sent.body.delivery.id as string;
    const queue = api.app.get(DeliveryQueue).queue;
    const attemptRow = (attempt: number) =>
      until(
        async () =>
          (
            await db().query(
              `SELECT a.started_at, a.duration_ms, a.next_attempt_at, d.next_attempt_at AS delivery_next, d.status
                 FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
                WHERE a.delivery_id = $1 AND a.attempt = $2`,
              [deliveryId, attempt],
            )
          )[0],
        `attempt ${attempt} to be recorded`,
      );

    for (const [attempt, delay] of [
      [1, 60_000],
      [2, 300_000],
      [3, 1_800_000],
      [4, 3_600_000],
    ]) {
      const row = await attemptRow(attempt);
      // Planned `delay` after the attempt ended (started_at + duration), on the attempt and on the delivery.
      const ended = row.started_at.getTime() + row.duration_ms;
      expect(row.status).toBe('pending');
      expect(row.next_attempt_at.getTime() - ended).toBeGreaterThanOrEqual(delay - 1000);
      expect(row.next_attempt_at.getTime() - ended).toBeLessThanOrEqual(delay + 1000);
      expect(row.delivery_next.getTime()).toBe(row.next_attempt_at.getTime());
      const job = await until(
        () => queue.getJob(`${deliveryId}:${attempt + 1}`),
        `attempt ${attempt + 1} in the queue`,
      );
      expect(job.data).toEqual({ deliveryId, attempt: attempt + 1 });
      expect(job.opts.delay).toBeGreaterThan(delay - 1000);
      expect(job.opts.delay).toBeLessThanOrEqual(delay);
      expect(await job.isDelayed()).toBe(true);
      await job.promote();
    }
    const last = await attemptRow(5);
    expect(last.next_attempt_at).toBeNull();
    expect(last.status).toBe('failed');
    expect(await queue.getJob(`${deliveryId}:6`)).toBeNull();
    expect(receiver.to('/fail/default-schedule').map((request) => request.headers['x-service-attempt'])).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
    ]);
    const [webhook] = await db().query('SELECT status FROM webhooks WHERE id = $1', [hookId]);
    expect(webhook.status).toBe('disabled');
  });
});
