import { WebhookReceiver } from '../fakes/webhook-receiver.js';
import { RedisServer } from './support/redis-server.js';
import { FaultStack } from './support/stack.js';

/**
 * (b) Redis dies during order traffic and comes back empty (every queued job lost). Orders keep
 * being taken meanwhile (they need only PostgreSQL; their events wait in the outbox), and once Redis
 * is back the outbox sweep and the lost-job sweep deliver every event.
 */
describe('fault: Redis stopped during order traffic', () => {
  let redis: RedisServer;
  let stack: FaultStack;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    redis = await RedisServer.start();
    receiver = new WebhookReceiver();
    stack = await FaultStack.start('redis_outage', {}, { redisUrl: redis.url });
  });
  afterAll(async () => {
    await stack?.close();
    await redis?.stop();
    await receiver?.stop();
  });

  it('orders are taken while Redis is down, and every event is delivered once it is back', async () => {
    const receiverUrl = await receiver.start();
    await stack.startWorker();
    const { token, storeId, credentials } = await stack.merchant();
    const product = await stack.call('POST', `/functions/v1/stores/${storeId}/products`, {
      token,
      body: { name: 'Teapot', price: 30, status: 'active', inventory_quantity: 1_000_000 },
    });
    await stack.call('POST', '/functions/v1/webhooks/register', {
      token,
      body: { store_id: storeId, url: `${receiverUrl}/ok/orders`, events: ['order.created'] },
    });

    // Order traffic, two at a time, until told to stop; every answer is kept.
    const answers: { status: number; code?: string; during: boolean }[] = [];
    let redisDown = false;
    let running = true;
    const lane = async () => {
      while (running) {
        const response = await fetch(`${stack.url}/functions/v1/stores/${storeId}/orders`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ items: [{ product_id: product.body.product.id, quantity: 1 }] }),
        });
        const body = (await response.json()) as { error?: { code?: string } };
        answers.push({ status: response.status, code: body.error?.code, during: redisDown });
      }
    };
    const traffic = Promise.all([lane(), lane()]);

    await stack.eventually('deliveries before the outage', async () => receiver.requests.length >= 10, 30_000);
    await redis.stop();
    redisDown = true;
    const placedBefore = answers.length;
    await new Promise((resolve) => setTimeout(resolve, 5000));
    // Readiness tells a load balancer what is missing; sign-in, whose attempt limits live in Redis,
    // waits for it rather than go uncounted.
    const ready = await fetch(`${stack.url}/health/ready`);
    expect(ready.status).toBe(503);
    const signIn = await stack.signIn(credentials);
    expect(signIn.status).toBe(503);
    expect(signIn.body).toMatchObject({ code: 503, error_code: 'service_unavailable' });
    await redis.resume();
    redisDown = false;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    running = false;
    await traffic;

    expect((await stack.signIn(credentials)).status).toBe(200);

    const during = answers.filter((answer) => answer.during);
    expect(during.length, 'orders placed while Redis was down').toBeGreaterThan(0);
    expect(answers.filter((answer) => answer.status !== 201)).toEqual([]);

    const events = (
      await stack.services.db.query<{ id: string }>(
        `SELECT id FROM outbox_events WHERE store_id = $1 AND event = 'order.created'`,
        [storeId],
      )
    ).rows.map((row) => row.id);
    expect(events).toHaveLength(answers.length);
    const arrived = () => new Set(receiver.requests.map((request) => JSON.parse(request.body).id as string));
    await stack.eventually('every event at the receiver', async () => events.every((id) => arrived().has(id)), 90_000);
    console.info(
      `Redis outage: ${placedBefore} orders before, ${during.length} ` +
        `during the 5 s outage, ${answers.length} in all; ` +
        `all ${events.length} events delivered after recovery, ${receiver.requests.length - arrived().size} twice`,
    );
  });
});
