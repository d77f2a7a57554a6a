import { DataSource } from 'typeorm';
import { DeliveryQueue, webhooksConfig } from '@app/webhooks';
import { WebhookReceiver } from './fakes/webhook-receiver.js';
import { merchantWithStore, startApp, type TestApp } from './support/app.js';
import { SYSTEM_DATA_SOURCE } from './support/database.js';
import { until } from './support/wait.js';

/**
 * How many attempts a failing delivery gets: one per entry of WEBHOOK_RETRY_DELAYS_MS, and never more
 * than 5 (MAX_DELIVERY_ATTEMPTS). With more delays listed the 5th failure disables the webhook and
 * the delays past the 5th are never used; with fewer, the failure of the last listed attempt does.
 * Every other setup the suite tests lists exactly 5, where neither limit alone decides.
 */
describe.each([
  { delays: '0,100,100,100,100,100,100,100', attempts: 5 },
  { delays: '0,100,100', attempts: 3 },
])('a delivery failing on WEBHOOK_RETRY_DELAYS_MS=$delays', ({ delays, attempts }) => {
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
      WEBHOOK_RETRY_DELAYS_MS: delays,
      // The circuit stays closed: an attempt past the limit would be sent at once, not parked for a cool-down.
      WEBHOOK_CIRCUIT_FAILURES: '1000',
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}attempt-limit-${attempts}:`,
    });
  });
  afterAll(async () => {
    await api?.close();
    await receiver?.stop();
  });

  it(`is tried ${attempts} times, then the webhook is disabled`, async () => {
    expect(api.settings.get(webhooksConfig).WEBHOOK_RETRY_DELAYS_MS).toHaveLength(delays.split(',').length);
    const owner = await merchantWithStore(api, `Attempt limit ${attempts}`);
    const path = `/fail/attempt-limit-${attempts}`;
    const registered = await api.request('POST', '/functions/v1/webhooks/register', {
      token: owner.token,
      body: { store_id: owner.storeId, url: `${base}${path}`, events: ['product.created'] },
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    const hookId = registered.body.webhook.id as string;
    const sent = await api.request('POST', `/functions/v1/webhooks/${hookId}/test`, { token: owner.token });
    expect(sent.status).toBe(201);
    const deliveryId = sent.body.delivery.id as string;

    const webhook = async () => {
      const [row] = await db().query('SELECT status, disabled_reason FROM webhooks WHERE id = $1', [hookId]);
      return row as { status: string; disabled_reason: string | null };
    };
    await until(async () => (await webhook()).status === 'disabled', 'the webhook to be disabled');
    const expected = Array.from({ length: attempts }, (_, i) => String(i + 1));
    expect(receiver.to(path).map((request) => request.headers['x-service-attempt'])).toEqual(expected);
    const reason = `${attempts} delivery attempts failed; the last: Receiver answered 500`;
    expect((await webhook()).disabled_reason).toBe(reason);
    const deliverySql = 'SELECT status, attempt_count FROM webhook_deliveries WHERE id = $1';
    const [delivery] = await db().query(deliverySql, [deliveryId]);
    expect(delivery).toEqual({ status: 'failed', attempt_count: attempts });
    expect(await api.app.get(DeliveryQueue).queue.getJob(`${deliveryId}:${attempts + 1}`)).toBeNull();
  });
});
