import fs from 'node:fs';
import Bull from 'bull';
import type { Child } from '../../bench/lib/child.js';
import { FakePlatformServer } from '../fakes/platform-server.js';
import { WebhookReceiver } from '../fakes/webhook-receiver.js';
import { FaultStack } from './support/stack.js';

const RATE_LIMIT = 60;
const RESEARCH_PER_HOUR = 5;

/**
 * Two API and two worker processes on one database and Redis prefix, as behind a load balancer:
 * whatever a limit or a sweep guards must hold across processes, not per process. Requests alternate
 * between the two APIs; both workers relay, deliver, publish and sweep.
 */
describe('fault: two API and two worker processes', () => {
  let stack: FaultStack;
  let receiver: WebhookReceiver;
  let fake: FakePlatformServer;
  let receiverUrl: string;

  beforeAll(async () => {
    receiver = new WebhookReceiver();
    receiverUrl = await receiver.start();
    fake = await FakePlatformServer.start();
    stack = await FaultStack.start(
      'instances',
      {
        ...fake.env(),
        RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
        AI_HOURLY_LIMITS: `research-social-context:${RESEARCH_PER_HOUR}`,
        // A lost delivery is claimed again after this long still pending: longer than a loaded machine needs to deliver
        // it.
        LOST_JOB_AFTER_MS: '5000',
      },
      { apis: 2, workers: 2 },
    );
  });
  afterAll(async () => {
    await stack?.close();
    await receiver?.stop();
    await fake?.close();
  });

  /** What each worker's timed sweep `task` claimed, summed over the runs logged after `from` (log sizes). */
  function sweepCounts(task: string, count: string, from: Map<Child, number>): number[] {
    return stack.startedWorkers.map((worker) =>
      fs
        .readFileSync(worker.logFile, 'utf8')
        .slice(from.get(worker) ?? 0)
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((entry) => entry.task === task)
        .reduce((sum, entry) => sum + Number(entry[count] ?? 0), 0),
    );
  }
  /** Waits until the workers' logged claims add up to `atLeast`; answers them per worker. */
  const claimedBySweeps = (task: string, count: string, from: Map<Child, number>, atLeast: number) =>
    stack.eventually(
      `${task}: ${atLeast} claims logged`,
      async () => {
        const counts = sweepCounts(task, count, from);
        return counts[0] + counts[1] >= atLeast ? counts : null;
      },
      10_000,
    );
  const logSizes = () => new Map(stack.startedWorkers.map((worker) => [worker, fs.statSync(worker.logFile).size]));

  it('limits requests per minute to one budget across both APIs', async () => {
    // The budget is per route and user: a fresh user's on one route, spent by pairs of requests, one to each API at
    // once.
    const { token } = await stack.merchant();
    const statuses: number[][] = [[], []];
    for (let pair = 0; pair < RATE_LIMIT; pair += 1) {
      const answers = await Promise.all(
        [0, 1].map((index) => stack.callAt(index, 'GET', '/functions/v1/stores', { token, expect: [200, 429] })),
      );
      answers.forEach((answer, index) => statuses[index].push(answer.status));
    }
    const ok = statuses.flat().filter((status) => status === 200).length;
    expect(ok).toBe(RATE_LIMIT);
    expect(statuses.flat().filter((status) => status === 429)).toHaveLength(RATE_LIMIT);
    // Each API let some through and refused some: they counted into the same window.
    for (const perApi of statuses) expect(new Set(perApi)).toEqual(new Set([200, 429]));
  });

  it('holds the hourly maximum of an AI function when calls alternate between the APIs', async () => {
    const { token, storeId } = await stack.merchant();
    const answers = await Promise.all(
      Array.from({ length: RESEARCH_PER_HOUR * 3 }, (_, index) =>
        stack.callAt(index % 2, 'POST', '/functions/v1/research-social-context', {
          token,
          body: { store_id: storeId, query: `linen ${index}`, platforms: ['instagram'] },
          expect: [200, 429],
        }),
      ),
    );
    const served = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(served).toHaveLength(RESEARCH_PER_HOUR);
    expect(refused).toHaveLength(RESEARCH_PER_HOUR * 2);
    for (const answer of refused) expect(answer.body.error.code).toBe('RATE_LIMITED');
    const { rows } = await stack.services.db.query<{ charges: number; balance: number }>(
      `SELECT (SELECT count(*)::int FROM credit_ledger WHERE store_id = $1 AND kind = 'charge') AS charges,
              (SELECT balance FROM credit_accounts WHERE store_id = $1) AS balance`,
      [storeId],
    );
    const credits = await stack.call('GET', `/functions/v1/credits?store_id=${storeId}`, { token });
    expect(rows[0].charges).toBe(RESEARCH_PER_HOUR);
    expect(credits.body.usage['research-social-context']).toEqual({
      used_last_hour: RESEARCH_PER_HOUR,
      limit: RESEARCH_PER_HOUR,
    });
    expect(credits.body.balance).toBe(rows[0].balance);
  });

  describe('events', () => {
    let merchant: Awaited<ReturnType<FaultStack['merchant']>>;
    let webhookId: string;
    const arrivals = () => {
      const counts = new Map<string, number>();
      for (const request of receiver.requests) {
        const id = JSON.parse(request.body).id as string;
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      return counts;
    };
    /** Waits until every delivery of the webhook is recorded `succeeded`, then answers how often each event arrived. */
    async function settled(eventIds: string[]): Promise<Map<string, number>> {
      await stack.eventually(
        'every delivery succeeded',
        async () => {
          const { rows } = await stack.services.db.query<{ done: number }>(
            `SELECT count(*)::int AS done FROM webhook_deliveries WHERE webhook_id ` +
              `= $1 AND event_id = ANY ($2::uuid[]) AND status = 'succeeded'`,
            [webhookId, eventIds],
          );
          return rows[0].done === eventIds.length;
        },
        60_000,
      );
      return arrivals();
    }

    it('delivers each event of changes made through both APIs exactly once', async () => {
      merchant = await stack.merchant();
      const { token, storeId } = merchant;
      const product = await stack.callAt(1, 'POST', `/functions/v1/stores/${storeId}/products`, {
        token,
        body: { name: 'Mug', price: 12, status: 'active', inventory_quantity: 1000 },
      });
      const webhook = await stack.call('POST', '/functions/v1/webhooks/register', {
        token,
        body: {
          store_id: storeId,
          url: `${receiverUrl}/ok/instances`,
          events: ['order.created', 'order.updated', 'order.paid'],
        },
      });
      webhookId = webhook.body.webhook.id;
      // 20 orders, two at a time (one per API), each then paid through the other API: 60 events.
      const orders: string[] = [];
      for (let pair = 0; pair < 10; pair += 1) {
        const placed = await Promise.all(
          [0, 1].map((index) =>
            stack.callAt(index, 'POST', `/functions/v1/stores/${storeId}/orders`, {
              token,
              body: { items: [{ product_id: product.body.product.id, quantity: 1 }] },
            }),
          ),
        );
        await Promise.all(
          placed.map((answer, index) =>
            stack.callAt(1 - index, 'PATCH', `/functions/v1/orders/${answer.body.order.id}`, {
              token,
              body: { status: 'paid' },
            }),
          ),
        );
        orders.push(...placed.map((answer) => answer.body.order.id as string));
      }
      const { rows } = await stack.services.db.query<{ id: string }>(
        `SELECT id FROM outbox_events WHERE store_id = $1 AND ` +
          `event IN ('order.created', 'order.updated', 'order.paid')`,
        [storeId],
      );
      const events = rows.map((row) => row.id);
      expect(orders).toHaveLength(20);
      expect(events).toHaveLength(60);
      const arrived = await settled(events);
      expect(events.filter((id) => arrived.get(id) !== 1)).toEqual([]);
      expect(receiver.requests).toHaveLength(60);
    });

    it('relays a backlog the notifications missed once, however the two workers’ timed sweeps meet', async () => {
      // Nothing left for a sweep from the orders above.
      await stack.eventually(
        'the outbox drained',
        async () =>
          (await stack.services.db.query(`SELECT 1 FROM outbox_events WHERE dispatched_at IS NULL LIMIT 1`))
            .rowCount === 0,
        30_000,
      );
      const from = logSizes();
      // Rows committed without their NOTIFY (triggers off for this session): only the timed sweeps find them.
      const backlog = 600;
      const client = await stack.services.db.connect();
      let ids: string[];
      try {
        await client.query('BEGIN');
        await client.query(`SET LOCAL session_replication_role = replica`);
        const inserted = await client.query<{ id: string }>(
          `INSERT INTO outbox_events (store_id, event, data)
           SELECT $1, 'order.updated', jsonb_build_object('order', jsonb_build_object('n', n))
             FROM generate_series(1, $2) AS n
           RETURNING id`,
          [merchant.storeId, backlog],
        );
        ids = inserted.rows.map((row) => row.id);
        await client.query('COMMIT');
      } finally {
        client.release();
      }
      const arrived = await settled(ids);
      expect(ids.filter((id) => arrived.get(id) !== 1)).toEqual([]);
      // Every run that claimed rows logged how many: the two workers' claims add up to the backlog, not more.
      const relayed = await claimedBySweeps('outbox sweep', 'relayed', from, backlog);
      console.info(
        `several instances: a backlog of ${backlog} events relayed ` +
          `by the timed sweeps, ${relayed.join(' + ')} by worker`,
      );
      expect(relayed[0] + relayed[1]).toBe(backlog);
    });

    it('re-enqueues each delivery whose job was lost once, with both workers’ lost-job sweeps running', async () => {
      const from = logSizes();
      // Pending deliveries an hour overdue with no job in Redis (as after a flush): only the sweeps find them.
      const lost = 100;
      const { rows } = await stack.services.db.query<{ event_id: string }>(
        `INSERT INTO webhook_deliveries (webhook_id, store_id, event_id, event, body, next_attempt_at)
         SELECT $1, $2, e.id, 'order.updated',
                json_build_object('id', e.id, 'event', 'order.updated', 'created_at', now(), 'store_id', $2::uuid,
                  'data', '{}'::json)::text,
                now() - interval '1 hour'
           FROM (SELECT gen_random_uuid() AS id FROM generate_series(1, $3)) AS e
         RETURNING event_id`,
        [webhookId, merchant.storeId, lost],
      );
      const ids = rows.map((row) => row.event_id);
      const arrived = await settled(ids);
      expect(ids.filter((id) => arrived.get(id) !== 1)).toEqual([]);
      const requeued = await claimedBySweeps('lost delivery job sweep', 'requeued', from, lost);
      console.info(`several instances: ${lost} lost deliveries re-enqueued ${requeued.join(' + ')} by worker`);
      expect(requeued[0] + requeued[1]).toBe(lost);
    });
  });

  /**
   * Leaves `posts` publishing, as a dead worker would, 3 s short of SOCIAL_INTERRUPTED_AFTER_MS (15
   * minutes), and holds a share lock on them until both workers' sweeps wait on it to close them: the
   * two closing statements then meet on the same rows, the case a sweep that is not a claim gets wrong.
   */
  async function closeTogether(posts: string[]): Promise<void> {
    await stack.services.db.query(
      `UPDATE social_posts SET status = 'publishing', attempts = 1,
        publishing_started_at = now() - interval '897 seconds'
        WHERE id = ANY ($1::uuid[])`,
      [posts],
    );
    const holder = await stack.services.db.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM social_posts WHERE id = ANY ($1::uuid[]) FOR SHARE', [posts]);
      await stack.eventually(
        'both sweeps waiting to close the posts',
        async () => {
          const { rows } = await stack.services.db.query<{ waiting: number }>(
            `SELECT count(*)::int AS waiting FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock'
                AND query LIKE '%UPDATE social_posts SET status = CASE%'`,
          );
          return rows[0].waiting === 2;
        },
        20_000,
      );
    } finally {
      await holder.query('COMMIT').catch(() => undefined);
      holder.release();
    }
  }

  it('publishes each scheduled post once and closes each interrupted one once, with two workers sweeping', async () => {
    const merchant = await stack.merchant();
    const { token, storeId } = merchant;
    await stack.connect(merchant, 'x');
    const schedule = async (index: number, text: string, at: Date) => {
      const result = await stack.callAt(index % 2, 'POST', '/functions/v1/social-publish', {
        token,
        body: { store_id: storeId, platforms: ['x'], content: { text }, schedule_at: at.toISOString() },
      });
      return result.body.results[0].post_id as string;
    };
    const due = new Date(Date.now() + 8000);
    const queue = new Bull('social-posts', {
      redis: stack.services.redisUrl,
      prefix: `${stack.services.redisPrefix}bull`,
    });
    try {
      // Lost: their jobs are removed (as by a flushed Redis); both workers' sweeps find them overdue.
      const lost = await Promise.all(
        Array.from({ length: 4 }, (_, index) => schedule(index, `Job lost #${index}`, due)),
      );
      for (const id of lost) await (await queue.getJob(`${id}:1`))!.remove();
      // On time: every job falls due at the same moment as the lost ones', spread over both workers.
      const onTime = await Promise.all(
        Array.from({ length: 10 }, (_, index) => schedule(index, `Due together #${index}`, due)),
      );
      // Interrupted: left `publishing` by a worker that died (below); both workers' sweeps close them.
      const later = new Date(Date.now() + 3_600_000);
      const interrupted = await Promise.all(
        Array.from({ length: 4 }, (_, index) => schedule(index, `Interrupted #${index}`, later)),
      );
      const from = logSizes();
      await closeTogether(interrupted);
      const published = [...onTime, ...lost];
      await stack.eventually(
        'every post published or closed',
        async () => {
          const { rows } = await stack.services.db.query<{ status: string; count: number }>(
            `SELECT status, count(*)::int AS count FROM social_posts WHERE id = ANY ($1::uuid[]) GROUP BY status`,
            [[...published, ...interrupted]],
          );
          const counts = Object.fromEntries(rows.map((row) => [row.status, row.count]));
          return counts.published === published.length && counts.failed === interrupted.length;
        },
        60_000,
      );
      // A sweep may have enqueued a post's job again just as it was published: wait until those ran too.
      await stack.eventually(
        'no job of a published post left',
        async () => (await Promise.all(published.map((id) => queue.getJob(`${id}:1`)))).every((job) => job === null),
        30_000,
      );
      const onPlatform = (text: string) => fake.posts.filter((post) => post.text === text).length;
      expect(onTime.map((_, index) => onPlatform(`Due together #${index}`))).toEqual(onTime.map(() => 1));
      expect(lost.map((_, index) => onPlatform(`Job lost #${index}`))).toEqual(lost.map(() => 1));
      expect(interrupted.map((_, index) => onPlatform(`Interrupted #${index}`))).toEqual(interrupted.map(() => 0));
      expect(fake.requestsTo('x', 'publish')).toHaveLength(published.length);

      const notified = await stack.services.db.query<{ post_id: string; count: number }>(
        `SELECT data->>'post_id' AS post_id, count(*)::int AS count FROM merchant_notifications
          WHERE store_id = $1 AND kind = 'social_post_failed' GROUP BY 1`,
        [storeId],
      );
      expect(Object.fromEntries(notified.rows.map((row) => [row.post_id, row.count]))).toEqual(
        Object.fromEntries(interrupted.map((id) => [id, 1])),
      );
      const closed = await claimedBySweeps('scheduled post sweep', 'interrupted', from, interrupted.length);
      console.info(`several instances: interrupted posts closed ${closed.join(' + ')} by worker`);
      expect(closed[0] + closed[1]).toBe(interrupted.length);
    } finally {
      await queue.close();
    }
  });
});
