import { WebhookReceiver } from '../fakes/webhook-receiver.js';
import { FaultStack } from './support/stack.js';

/**
 * (a) The worker is SIGKILLed while webhook deliveries are in flight (requests the receiver holds for
 * 100 ms), orders keep coming while it is down, and a new worker is started: every event committed
 * reaches the receiver, and every delivery ends `succeeded`. A delivery cut mid-request may arrive
 * twice (at least once; receivers de-duplicate on the envelope id), never zero times.
 */
describe('fault: worker killed during webhook deliveries', () => {
  let stack: FaultStack;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = new WebhookReceiver();
    stack = await FaultStack.start('worker_crash');
  });
  afterAll(async () => {
    await stack?.close();
    await receiver?.stop();
  });

  it('every event is delivered after a SIGKILL and a restart', async () => {
    const receiverUrl = await receiver.start();
    await stack.startWorker();
    const { token, storeId } = await stack.merchant();
    const product = await stack.call('POST', `/functions/v1/stores/${storeId}/products`, {
      token,
      body: { name: 'Mug', price: 12, status: 'active', inventory_quantity: 1_000_000 },
    });
    const webhook = await stack.call('POST', '/functions/v1/webhooks/register', {
      token,
      body: { store_id: storeId, url: `${receiverUrl}/lag/orders`, events: ['order.created', 'inventory.updated'] },
    });
    const placeOrders = async (count: number) => {
      for (let index = 0; index < count; index += 4) {
        await Promise.all(
          Array.from({ length: Math.min(4, count - index) }, () =>
            stack.call('POST', `/functions/v1/stores/${storeId}/orders`, {
              token,
              body: { items: [{ product_id: product.body.product.id, quantity: 1 }] },
            }),
          ),
        );
      }
    };

    // Deliveries flowing: kill the worker while the receiver holds requests it has not answered.
    const placing = placeOrders(60);
    await stack.eventually(
      'deliveries in flight',
      async () => receiver.requests.length >= 20 && receiver.unanswered > 0,
      60_000,
    );
    const inFlightAtKill = receiver.unanswered;
    await stack.killWorker();
    const arrivedAtKill = new Set(receiver.requests.map((request) => JSON.parse(request.body).id)).size;
    await placing;
    // More orders while no worker runs: their events wait in the outbox.
    await placeOrders(20);

    const events = (
      await stack.services.db.query<{ id: string }>(
        `SELECT id FROM outbox_events WHERE store_id = $1 AND event IN ('order.created', 'inventory.updated')`,
        [storeId],
      )
    ).rows.map((row) => row.id);
    expect(events).toHaveLength(160);
    expect(arrivedAtKill).toBeLessThan(events.length);

    await stack.startWorker();
    const arrived = () => new Set(receiver.requests.map((request) => JSON.parse(request.body).id as string));
    // Bull hands a killed worker's jobs on once their locks expire (30 s); the sweep re-enqueues the rest.
    await stack.eventually('every event at the receiver', async () => events.every((id) => arrived().has(id)), 120_000);

    // A delivery cut mid-request has arrived but is recorded only when Bull hands its stalled job on:
    // the lock expires 30 s after its last renewal and stalled jobs are looked for every 30 s, so
    // this can take a minute and more. The statuses last seen go into a timeout's message.
    let counts: Record<string, number> = {};
    const statuses = await stack
      .eventually(
        'every delivery recorded',
        async () => {
          const { rows } = await stack.services.db.query<{ status: string; count: string }>(
            'SELECT status, count(*) FROM webhook_deliveries WHERE webhook_id = $1 GROUP BY status',
            [webhook.body.webhook.id],
          );
          counts = Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
          return counts.succeeded === events.length && Object.keys(counts).length === 1 ? counts : null;
        },
        150_000,
      )
      .catch((error: Error) => {
        throw new Error(`${error.message}; deliveries by status: ${JSON.stringify(counts)}`);
      });
    expect(statuses).toEqual({ succeeded: events.length });
    const duplicates = receiver.requests.length - arrived().size;
    console.info(
      `worker crash: ${events.length} events, ${arrivedAtKill} had ` +
        `arrived and ${inFlightAtKill} were in flight at the kill; ` +
        `all delivered after the restart, ${duplicates} twice`,
    );
  }, 360_000);
});
