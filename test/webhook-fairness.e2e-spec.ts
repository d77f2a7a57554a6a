import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { createRedis, MetricsService, REDIS, redisConfig } from '@app/core';
import { EndpointGate, LostDeliverySweep, webhooksConfig } from '@app/webhooks';
import { SwitchableReceiver } from './fakes/switchable-receiver.js';
import { merchantWithStore, startApp, type TestApp } from './support/app.js';
import { createPrivateDatabase, SYSTEM_DATA_SOURCE } from './support/database.js';
import { until } from './support/wait.js';

const COOL_DOWN_MS = 700;
const FAILURES_TO_OPEN = 3;

/**
 * Fair delivery: per-webhook slots and a circuit breaker in Redis (the delivery gate), so that one
 * store's slow or failing receiver delays only its own deliveries. Test events (`POST …/test`) make
 * the deliveries, each through the real queue and worker, to receivers on 127.0.0.1.
 */
describe('fair delivery between webhooks', () => {
  let api: TestApp;
  let slow: SwitchableReceiver;
  let fast: SwitchableReceiver;
  let slowUrl: string;
  let fastUrl: string;
  let database: Awaited<ReturnType<typeof createPrivateDatabase>>;
  const db = () => api.app.get<DataSource>(SYSTEM_DATA_SOURCE);

  const webhookFor = async (url: string) => {
    const { token, storeId } = await merchantWithStore(api, 'Fairness store');
    const result = await api.request('POST', '/functions/v1/webhooks/register', {
      token,
      body: { store_id: storeId, url, events: ['order.created'] },
    });
    expect(result.status, JSON.stringify(result.body)).toBe(201);
    return { token, id: result.body.webhook.id as string };
  };
  const sendTests = async (webhook: { token: string; id: string }, count: number) => {
    for (let index = 0; index < count; index++) {
      const result = await api.request('POST', `/functions/v1/webhooks/${webhook.id}/test`, { token: webhook.token });
      expect(result.status, JSON.stringify(result.body)).toBe(201);
    }
  };
  const deliveries = (webhookId: string) =>
    db().query<{ id: string; status: string; attempt_count: number; parked_at: Date | null }[]>(
      'SELECT id, status, attempt_count, parked_at FROM webhook_deliveries WHERE webhook_id = $1',
      [webhookId],
    );
  /** Attempts the gate holds parked for the webhook (what the sweep marks `parked_at` in PostgreSQL). */
  const parkedInGate = (webhookId: string) => api.app.get<Redis>(REDIS).zcard(`webhook-gate:{${webhookId}}:parked`);

  beforeAll(async () => {
    slow = new SwitchableReceiver();
    fast = new SwitchableReceiver();
    slowUrl = await slow.start();
    fastUrl = await fast.start();
    // A database of its own: its sweep (run by the tests, with no grace) must not take other files' deliveries.
    database = await createPrivateDatabase('fairness');
    api = await startApp({
      DATABASE_URL: database.url,
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_RETRY_DELAYS_MS: '0,1000,2000,4000,8000',
      WEBHOOK_ENDPOINT_CONCURRENCY: '2',
      WEBHOOK_CIRCUIT_FAILURES: String(FAILURES_TO_OPEN),
      WEBHOOK_CIRCUIT_COOLDOWN_MS: String(COOL_DOWN_MS),
      // The sweep runs when a test calls it; a parked delivery counts as lost by the gate at once.
      JOB_SWEEP_INTERVAL_MS: '600000',
      LOST_JOB_AFTER_MS: '0',
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}fairness:`,
    });
  });
  afterAll(async () => {
    await api?.close();
    await slow?.stop();
    await fast?.stop();
    await database?.drop();
  });

  it(
    'holds a slow receiver to its slots, parks the rest ' + "in the gate, and lets another store's deliveries past",
    async () => {
      slow.set({ kind: 'delay', ms: 800 });
      const handOvers = async () => {
        const { values } = await api.app.get(MetricsService).webhookHandOvers.get();
        const count = (via: string) => values.find((value) => value.labels.via === via)?.value ?? 0;
        return { job: count('job'), queue: count('queue') };
      };
      const before = await handOvers();
      const slowHook = await webhookFor(`${slowUrl}/slots`);
      const fastHook = await webhookFor(`${fastUrl}/slots`);
      await sendTests(slowHook, 16);
      await until(
        async () => slow.inFlight === 2 && (await parkedInGate(slowHook.id)) >= 10,
        'the slow receiver busy and the rest parked',
      );

      await sendTests(fastHook, 6);
      await until(() => fast.delivered().size === 6, "the other store's deliveries");
      // Each arrived soon after its request,
      // while the slow store's backlog (16 × 800 ms, 2 at a time) is still far from done.
      for (const arrival of fast.arrivals) expect(arrival.at - arrival.createdAt).toBeLessThan(1000);
      expect(slow.delivered('/slots').size).toBeLessThan(16);

      const rows = await until(
        async () => {
          const found = await deliveries(slowHook.id);
          return found.every((row) => row.status !== 'pending') && found;
        },
        'the slow backlog delivered',
        30_000,
      );
      expect(slow.delivered('/slots').size).toBe(16);
      expect(slow.maxInFlight).toBe(2);
      expect(rows.map((row) => [row.status, row.attempt_count, row.parked_at])).toEqual(
        rows.map(() => ['succeeded', 1, null]),
      );
      // The 14 parked ones were each sent by the job whose request freed the slot, none through a new job.
      const after = await handOvers();
      expect(after.job - before.job).toBeGreaterThanOrEqual(14);
      expect(after.queue - before.queue).toBe(0);
    },
  );

  it(
    'opens the circuit of a failing receiver, sends nothing but one ' +
      'probe per cool-down, and counts only requests sent as attempts',
    async () => {
      slow.set({ kind: 'fail' });
      const hook = await webhookFor(`${slowUrl}/circuit`);
      const sent = () => slow.to('/circuit');
      await sendTests(hook, 10);
      await until(async () => (await parkedInGate(hook.id)) >= 6, 'deliveries parked behind the open circuit');
      const failingSince = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 3 * COOL_DOWN_MS));
      const failingMs = Date.now() - failingSince;
      const sentWhileFailing = sent().length;
      // Without the breaker: 10 first attempts and their retries. With it: the failures that opened it
      // (at most FAILURES_TO_OPEN + the other slot's request) and one probe per cool-down.
      expect(sentWhileFailing).toBeLessThanOrEqual(FAILURES_TO_OPEN + 1 + Math.ceil(failingMs / COOL_DOWN_MS) + 1);

      slow.set({ kind: 'ok' });
      await until(
        async () => (await deliveries(hook.id)).every((row) => row.status === 'succeeded'),
        'every delivery succeeded',
        30_000,
      );
      const ids = new Set(sent().map((arrival) => arrival.id));
      expect(ids.size).toBe(10);
      const attempts = await db().query<{ count: number }[]>(
        'SELECT count(*)::int AS count FROM webhook_attempts a JOIN ' +
          'webhook_deliveries d ON d.id = a.delivery_id WHERE d.webhook_id = $1',
        [hook.id],
      );
      // Every request sent is one attempt recorded, and nothing else is: parking records none.
      expect(attempts[0].count).toBe(sent().length);
      expect((await deliveries(hook.id)).every((row) => row.attempt_count <= 5)).toBe(true);
    },
  );

  it(
    'keeps one state for every process: the limit, the parked ' +
      'order, the opening and the one probe hold across connections',
    async () => {
      // Two gates on connections of their own, as two worker processes have.
      const connections = [createRedis(api.settings.get(redisConfig)), createRedis(api.settings.get(redisConfig))];
      const [one, two] = connections.map((redis) => new EndpointGate(redis, api.settings.get(webhooksConfig)));
      try {
        const webhook = randomUUID();
        const attempts = Array.from({ length: 20 }, (_, index) => ({
          deliveryId: randomUUID(),
          attempt: 1,
          due: 1000 + index,
        }));
        const claims = await Promise.all(
          attempts.map((a, index) => (index % 2 ? one : two).claim(webhook, a, a.due, false)),
        );
        const granted = attempts.filter((_, index) => claims[index].granted);
        expect(granted).toHaveLength(2);
        expect(
          claims.filter((claim) => !claim.granted).every((claim) => !claim.granted && claim.reason === 'busy'),
        ).toBe(true);
        // The same attempt again, from the other process, while its slot is held: it sends nothing.
        expect(await one.claim(webhook, granted[0], 0, false)).toEqual({ granted: false, reason: 'duplicate' });

        // A slot given back goes to the attempt that was due first among the parked.
        const parked = attempts.filter((a) => !granted.includes(a)).sort((x, y) => x.due - y.due);
        const released = await one.release(webhook, granted[0], 'succeeded');
        expect(released).toEqual({ openedUntil: null, handed: [{ deliveryId: parked[0].deliveryId, attempt: 1 }] });
        expect(await two.claim(webhook, parked[0], parked[0].due, true)).toEqual({ granted: true, probe: false });

        // FAILURES_TO_OPEN failures in a row open the circuit; each slot freed before goes to the next parked.
        const handedBack = (slot: { deliveryId: string }) => [{ deliveryId: slot.deliveryId, attempt: 1 }];
        expect(await two.release(webhook, granted[1], 'failed')).toEqual({
          openedUntil: null,
          handed: handedBack(parked[1]),
        });
        expect(await one.release(webhook, parked[0], 'failed')).toEqual({
          openedUntil: null,
          handed: handedBack(parked[2]),
        });
        const opening = await two.release(webhook, parked[1], 'failed');
        expect(opening.openedUntil).toBeGreaterThan(Date.now());
        expect(opening.handed).toEqual([]);
        // Open: a new attempt is parked, and a failure from before the opening changes nothing.
        expect(await one.claim(webhook, { deliveryId: randomUUID(), attempt: 1 }, 5000, false)).toEqual({
          granted: false,
          reason: 'open',
        });
        expect(await one.release(webhook, parked[2], 'failed')).toEqual({ openedUntil: null, handed: [] });

        // After the cool-down, of many claims at once exactly one becomes the probe.
        await new Promise((resolve) => setTimeout(resolve, COOL_DOWN_MS + 50));
        const woken = await Promise.all([one.wake(webhook), two.wake(webhook)]);
        expect(woken.flatMap((w) => w.handed)).toHaveLength(1);
        const probe = woken.flatMap((w) => w.handed)[0];
        expect(probe).toEqual({ deliveryId: parked[3].deliveryId, attempt: 1 });
        expect(await one.claim(webhook, probe, 0, true)).toEqual({ granted: true, probe: true });
        expect(await two.claim(webhook, { deliveryId: randomUUID(), attempt: 1 }, 5000, false)).toEqual({
          granted: false,
          reason: 'probing',
        });
        // Its success closes the circuit, and both slots go to the oldest parked.
        const closed = await two.release(webhook, probe, 'succeeded');
        expect(closed).toEqual({ openedUntil: null, handed: [parked[4], parked[5]].map(handedBack).flat() });
      } finally {
        for (const redis of connections) redis.disconnect();
      }
    },
  );

  it("enqueues again the parked deliveries Redis lost: the gate's state goes, the deliveries stay", async () => {
    slow.set({ kind: 'delay', ms: 1500 });
    const hook = await webhookFor(`${slowUrl}/lost`);
    await sendTests(hook, 8);
    await until(async () => (await parkedInGate(hook.id)) >= 6, 'deliveries parked');
    // The sweep marks them parked in PostgreSQL. (Without a grace here, it also enqueues the two in
    // flight again; their jobs find the attempt's slot held and send nothing.)
    await api.app.get(LostDeliverySweep).requeueLost();
    expect((await deliveries(hook.id)).filter((row) => row.parked_at !== null)).toHaveLength(6);
    const redis = api.app.get<Redis>(REDIS);
    const prefix = api.settings.get(redisConfig).REDIS_PREFIX;
    const gateKeys = (await redis.keys(`${prefix}webhook-gate:{${hook.id}}:*`)).map((key) => key.slice(prefix.length));
    expect(gateKeys.length).toBeGreaterThan(0);
    await redis.del(...gateKeys);
    slow.set({ kind: 'ok' });
    // The two requests in flight finish; nothing hands a slot on, as the gate no longer knows the rest.
    await until(
      async () => (await deliveries(hook.id)).filter((row) => row.status === 'succeeded').length === 2,
      'the two in flight',
    );
    expect((await deliveries(hook.id)).filter((row) => row.status === 'pending')).toHaveLength(6);

    expect(await api.app.get(LostDeliverySweep).requeueLost()).toBeGreaterThanOrEqual(6);
    await until(
      async () => (await deliveries(hook.id)).every((row) => row.status === 'succeeded'),
      'every delivery succeeded',
    );
    expect(slow.delivered('/lost').size).toBe(8);
  });
});
