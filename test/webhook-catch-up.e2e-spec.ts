import { createHmac, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';
import { REDIS } from '@app/core';
import { EndpointGate } from '@app/webhooks';
import { WebhookReceiver, type ReceivedRequest } from './fakes/webhook-receiver.js';
import { merchantWithStore, startApp, type TestApp } from './support/app.js';
import { createPrivateDatabase, SYSTEM_DATA_SOURCE } from './support/database.js';
import { until } from './support/wait.js';

const SECRET = 'catch-up-secret-of-the-merchant';
const OF_WEBHOOK = 'webhook_id = $1 ORDER BY created_at, id';
/** What a receiver checks: X-Service-Signature and the Standard Webhooks signature. */
const signedBy = (request: ReceivedRequest, secret: string) =>
  request.headers['x-service-signature'] === createHmac('sha256', secret).update(request.body).digest('hex') &&
  new Webhook(secret, { format: 'raw' }).verify(request.body, request.headers as Record<string, string>) !== undefined;

/**
 * Catching up after a webhook was disabled: events of its kinds are recorded as `skipped` deliveries
 * (nothing sent), `recover` sends them once it is enabled again, and re-enabling resets its circuit
 * breaker so the next event goes at once, while requests still in flight keep their slots. Real relay,
 * dispatch, gate and worker, against a receiver on 127.0.0.1, with a compressed retry schedule.
 */
describe('webhook catch-up', () => {
  let api: TestApp;
  let database: Awaited<ReturnType<typeof createPrivateDatabase>>;
  let receiver: WebhookReceiver;
  let base: string;
  let owner: { token: string; storeId: string };
  const db = () => api.app.get<DataSource>(SYSTEM_DATA_SOURCE);
  const call = (method: string, path: string, body?: unknown) =>
    api.request(method, `/functions/v1${path}`, { token: owner.token, ...(body === undefined ? {} : { body }) });

  const register = async (path: string, events: string[]) => {
    const body = { store_id: owner.storeId, url: `${base}${path}`, events, secret: SECRET };
    const result = await call('POST', '/webhooks/register', body);
    expect(result.status, JSON.stringify(result.body)).toBe(201);
    return result.body.webhook.id as string;
  };
  const customer = async (name: string) => {
    const email = `${name.toLowerCase()}@example.com`;
    const created = await call('POST', `/stores/${owner.storeId}/customers`, { name, email });
    return created.body.customer.id as string;
  };
  const deliveries = async (webhookId: string): Promise<{ status: string; attempt_count: number; body: string }[]> =>
    db().query(`SELECT status, attempt_count, body FROM webhook_deliveries WHERE ${OF_WEBHOOK}`, [webhookId]);
  /** Every event of the store acknowledged by the webhook dispatch (its deliveries written) and no delivery pending. */
  const settled = () =>
    until(async () => {
      const [row] = await db().query(
        `SELECT (SELECT count(*)::int FROM outbox_events e WHERE store_id = $1
                   AND (dispatched_at IS NULL OR EXISTS (SELECT 1 FROM outbox_owed_acks o
                                                          WHERE o.subscriber = 'webhooks'
                                                            AND e.id = ANY (o.event_ids)))) AS owed,
                (SELECT count(*)::int FROM webhook_deliveries WHERE store_id = $1 AND status = 'pending') AS pending`,
        [owner.storeId],
      );
      return row.owed === 0 && row.pending === 0;
    }, 'every event dispatched and every delivery finished');

  beforeAll(async () => {
    receiver = new WebhookReceiver();
    base = await receiver.start();
    database = await createPrivateDatabase('webhook_catch_up');
    api = await startApp({
      DATABASE_URL: database.url,
      OUTBOX_RELAY: 'true',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_RETRY_DELAYS_MS: '0,150,150,150,150',
      WEBHOOK_TIMEOUT_MS: '2000',
      JOB_SWEEP_INTERVAL_MS: '1000',
      LOST_JOB_AFTER_MS: '2000',
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}catch-up:`,
    });
    owner = await merchantWithStore(api, 'Catch-up store');
  });
  afterAll(async () => {
    await api?.close();
    await receiver?.stop();
    await database?.drop();
  });

  it('records skipped deliveries while disabled, sending nothing; recover sends them once enabled', async () => {
    const hookId = await register('/ok/catch-up', ['customer.created', 'customer.updated']);
    expect((await call('PATCH', `/webhooks/${hookId}`, { status: 'disabled' })).status).toBe(200);
    const since = new Date(Date.now() - 1000).toISOString();
    const ada = await customer('Ada');
    await call('PATCH', `/customers/${ada}`, { name: 'Ada L.' });
    await customer('Bea');
    await settled();

    expect((await deliveries(hookId)).map((d) => [d.status, d.attempt_count])).toEqual([
      ['skipped', 0],
      ['skipped', 0],
      ['skipped', 0],
    ]);
    expect(receiver.to('/ok/catch-up')).toHaveLength(0);
    const skipped = await call('GET', `/webhooks/${hookId}/deliveries?status=skipped`);
    expect(skipped.body.data.map((d: { event: string; attempts: unknown[] }) => [d.event, d.attempts.length])).toEqual([
      ['customer.created', 0],
      ['customer.updated', 0],
      ['customer.created', 0],
    ]);
    expect((await call('GET', `/webhooks/${hookId}/deliveries?status=failed`)).body.data).toEqual([]);

    // Nothing can be sent to a disabled webhook: recover refuses, and creates nothing.
    const refused = await call('POST', `/webhooks/${hookId}/recover`, { since });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toContain('re-enable');
    expect(await deliveries(hookId)).toHaveLength(3);

    expect((await call('PATCH', `/webhooks/${hookId}`, { status: 'active' })).body.webhook.status).toBe('active');
    const recovered = await call('POST', `/webhooks/${hookId}/recover`, { since });
    expect(recovered.status).toBe(200);
    expect(recovered.body).toMatchObject({ success: true, redelivered: 3, has_more: false });
    const received = () => receiver.to('/ok/catch-up');
    const arrived = await until(() => received().length === 3 && received(), 'the recovered events');
    const skippedBodies = (await deliveries(hookId)).filter((d) => d.status === 'skipped').map((d) => d.body);
    expect(arrived.map((request) => request.body).sort()).toEqual([...skippedBodies].sort());
    expect(arrived.map((request) => JSON.parse(request.body).data.name).sort()).toEqual(['Ada', 'Ada L.', 'Bea']);
    for (const request of arrived) expect(signedBy(request, SECRET)).toBe(true);

    // Each recovered event was sent once: recovering again sends nothing.
    await settled();
    expect((await call('POST', `/webhooks/${hookId}/recover`, { since })).body.redelivered).toBe(0);
  });

  it('re-enabling resets the circuit the failures opened: the next event goes at once', async () => {
    const hookId = await register('/fail/breaker', ['customer.created']);
    await customer('Cy');
    await until(
      async () => (await db().query('SELECT status FROM webhooks WHERE id = $1', [hookId]))[0].status === 'disabled',
      'the webhook to be disabled after 5 failed attempts',
    );
    expect(receiver.to('/fail/breaker')).toHaveLength(5);
    // The 5 failures opened the webhook's circuit for its cool-down (a minute).
    const circuit = `webhook-gate:{${hookId}}:circuit`;
    const openUntil = Number(await api.app.get<Redis>(REDIS).hget(circuit, 'open_until'));
    expect(openUntil - Date.now()).toBeGreaterThan(30_000);

    const enabled = await call('PATCH', `/webhooks/${hookId}`, { status: 'active', url: `${base}/ok/breaker` });
    expect(enabled.body.webhook).toMatchObject({ status: 'active', disabled_reason: null });
    expect(await api.app.get<Redis>(REDIS).exists(circuit)).toBe(0);
    const firedAt = Date.now();
    await customer('Dee');
    const received = () => receiver.to('/ok/breaker');
    const [request] = await until(() => received().length > 0 && received(), 'the next event', 3000);
    expect(request.at - firedAt).toBeLessThan(3000);
    expect(JSON.parse(request.body)).toMatchObject({ event: 'customer.created', data: { name: 'Dee' } });
  });

  it('a gate reset closes the circuit and hands only the slots really free to the parked, oldest first', async () => {
    const gate = api.app.get(EndpointGate);
    const attempt = (deliveryId: string) => ({ deliveryId, attempt: 1 });
    const busy = randomUUID();
    // Two slots (WEBHOOK_ENDPOINT_CONCURRENCY): the third and fourth attempts wait, parked.
    expect(await gate.claimNew(busy, ['d1', 'd2', 'd3', 'd4'], Date.now())).toEqual(['d1', 'd2']);
    // d1 and d2 are still in flight: the reset frees neither slot, so nothing is handed over.
    expect(await gate.reset(busy)).toEqual([]);
    expect(await gate.wake(busy)).toEqual({ parked: 2, inFlight: 2, handed: [] });
    // Each gives its own slot back when it finishes, to the oldest parked.
    expect((await gate.release(busy, attempt('d1'), 'succeeded')).handed).toEqual([attempt('d3')]);
    expect((await gate.release(busy, attempt('d2'), 'failed')).handed).toEqual([attempt('d4')]);

    // An open circuit, one attempt (f1) still in flight, three parked: the reset closes the circuit and
    // hands the one free slot to the oldest parked; f1 keeps its own.
    const open = randomUUID();
    expect(await gate.claimNew(open, ['f1'], Date.now())).toEqual(['f1']);
    let opened: number | null = null;
    for (let i = 1; i <= 5; i += 1) {
      expect(await gate.claim(open, attempt(`x${i}`), Date.now(), false)).toEqual({ granted: true, probe: false });
      opened = (await gate.release(open, attempt(`x${i}`), 'failed')).openedUntil;
    }
    expect(opened).toBeGreaterThan(Date.now());
    expect(await gate.claimNew(open, ['p1', 'p2', 'p3'], Date.now())).toEqual([]);
    expect(await gate.reset(open)).toEqual([attempt('p1')]);
    expect(await gate.wake(open)).toEqual({ parked: 2, inFlight: 2, handed: [] });
    expect(await api.app.get<Redis>(REDIS).exists(`webhook-gate:{${open}}:circuit`)).toBe(0);
    expect((await gate.release(open, attempt('f1'), 'succeeded')).handed).toEqual([attempt('p2')]);
  });

  it('re-enabling keeps the slots of requests in flight: a hanging receiver never sees more than two', async () => {
    const path = '/hang/flood';
    const hookId = await register(path, ['customer.created']);
    const since = new Date(Date.now() - 1000).toISOString();
    for (const name of ['Flo', 'Gus', 'Hal']) await customer(name);
    // WEBHOOK_ENDPOINT_CONCURRENCY (2) requests hang at the receiver; the third delivery is parked.
    await until(async () => (await deliveries(hookId)).length === 3, 'the three deliveries');
    await until(() => receiver.openTo(path) === 2, 'two requests hanging at the receiver');

    // While they hang (2 s timeout): disable, re-enable and a new event; then disable, re-enable and recover.
    const cycle = async () => {
      expect((await call('PATCH', `/webhooks/${hookId}`, { status: 'disabled' })).status).toBe(200);
      expect((await call('PATCH', `/webhooks/${hookId}`, { status: 'active' })).status).toBe(200);
    };
    await cycle();
    await customer('Ida');
    await until(async () => (await deliveries(hookId)).length === 4, "the new event's delivery");
    await cycle();
    expect((await call('POST', `/webhooks/${hookId}/recover`, { since })).body.redelivered).toBe(4);

    // The 4 recovered go as the hanging requests give up, two at a time: the receiver never has more open.
    const received = await until(() => receiver.to(path).length >= 6 && receiver.to(path), 'the recovered events');
    expect(receiver.peakOpen(path)).toBe(2);
    const names = received.slice(2).map((request) => JSON.parse(request.body).data.name);
    expect(names.sort()).toEqual(['Flo', 'Gus', 'Hal', 'Ida']);

    expect((await call('PATCH', `/webhooks/${hookId}`, { status: 'disabled' })).status).toBe(200);
    receiver.release();
  });
});
