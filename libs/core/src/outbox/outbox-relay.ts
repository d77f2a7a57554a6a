import { Inject, Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { EventBus } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { runtimeConfig, type RuntimeConfig } from '../config/runtime.config.js';
import { databaseConfig, type DatabaseConfig } from '../database/database.config.js';
import { MetricsService } from '../observability/metrics.service.js';
import { PeriodicTask } from '../scheduling/periodic-task.js';
import { SystemDb } from '../tenancy/db-handles.js';
import { BATCH, claimOverdue, claimUndispatched, toEnvelope, type OutboxRow } from './outbox-claims.js';
import { outboxConfig, type OutboxConfig } from './outbox.config.js';
import { StoreEventSubscribers } from './store-event-subscribers.js';
import { StoreEvent } from './store-event.js';

export { MAX_REPUBLISH_DELAY_MS, toEnvelope } from './outbox-claims.js';

const CHANNEL = 'outbox_events';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Publishes committed outbox rows on the EventBus, and publishes them again to the acknowledging
 * subscribers (`StoreEventSubscribers`) that have not acknowledged them in time.
 *
 * It hears of each commit through LISTEN/NOTIFY (PostgreSQL delivers the notification at commit,
 * never for a rollback) and sweeps on a timer for rows a lost notification, a crash or a restart left
 * undispatched. A claim is one statement (outbox-claims.ts): it marks the rows dispatched, writes what the publication
 * is owed (one `outbox_owed_acks` row per acknowledging subscriber that handles some of its events,
 * due OUTBOX_ACK_TIMEOUT_MS ahead) and returns the rows, taking them with FOR UPDATE SKIP LOCKED so
 * that several relays never publish a row at the same time. The rows are then published, all in one
 * call, under one publication id; subscribers work after the claim has committed, each in its own
 * statement, and acknowledge there. The relay claims again once that work is done
 * (MAX_BATCHES_IN_FLIGHT), so what commits meanwhile goes in the next claim. The same sweep takes the
 * owed rows whose `due_at` has passed: their events are published again for that subscriber only
 * (with a doubling delay before the next time, up to MAX_REPUBLISH_DELAY_MS). Runs in the worker
 * (APP_ROLE worker or all), on the service role's connection.
 */
@Injectable()
export class OutboxRelay implements BeforeApplicationShutdown {
  private readonly logger = new Logger(OutboxRelay.name);
  private listener?: pg.Client;
  private readonly sweeper = new PeriodicTask(
    'outbox sweep',
    async () => ({ relayed: await this.sweep(), republished: await this.republishOverdue() }),
    this.logger,
  );
  private running = false;
  /** The end of the queue of claiming steps (`inTurn`). */
  private turns: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly system: SystemDb,
    private readonly events: EventBus,
    private readonly subscribers: StoreEventSubscribers,
    private readonly metrics: MetricsService,
    @Inject(outboxConfig.KEY) private readonly config: OutboxConfig,
    @Inject(runtimeConfig.KEY) private readonly runtime: RuntimeConfig,
    @Inject(databaseConfig.KEY) private readonly database: DatabaseConfig,
  ) {}

  /**
   * Whether this process relays (worker and all-in-one processes with OUTBOX_RELAY on). The root module
   * starts the relay once the whole application has bootstrapped: CoreModule is global, so its own
   * bootstrap hooks run before @nestjs/cqrs registers the sagas and handlers the first sweep publishes to.
   */
  get enabled(): boolean {
    return this.runtime.APP_ROLE !== 'api' && this.config.OUTBOX_RELAY;
  }

  /** Stops before the connections close, and lets the subscribers finish what it published (and acknowledge it). */
  async beforeApplicationShutdown(): Promise<void> {
    await this.stop();
    await this.subscribers.settled();
  }

  /** Starts listening and sweeping; catches up on whatever is pending. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.listen();
    this.sweeper.start(this.config.OUTBOX_SWEEP_INTERVAL_MS);
    await this.sweeper.runOnce();
  }

  /** Stops listening and sweeping (tests use it to lose the immediate publish on purpose). */
  async stop(): Promise<void> {
    this.running = false;
    await this.sweeper.stop();
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
    await this.turns;
  }

  /** Publishes every undispatched row, oldest first, in batches; returns how many. */
  async sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const published = (await this.inTurn(() => this.dispatch(null))).length;
      total += published;
      if (published < BATCH) return total;
    }
  }

  /**
   * Publishes again, to the subscriber that owes its acknowledgement, the events of every owed row
   * whose `due_at` has passed, each row as a batch of its own; returns how many events it published.
   */
  async republishOverdue(): Promise<number> {
    let total = 0;
    for (;;) {
      const { taken, owed } = await this.overdue();
      for (const { publication, subscriber, events } of owed) {
        await this.inTurn(async () => {
          this.metrics.storeEventsRepublished.inc({ subscriber }, events.length);
          this.logger.warn(
            { subscriber, publication, events: events.map((row) => row.id) },
            `${events.length} store events not acknowledged in time: published again for ${subscriber}`,
          );
          this.publish(events, publication, [subscriber]);
        });
        total += events.length;
      }
      if (taken < BATCH) return total;
    }
  }

  /**
   * Runs a claiming step (a claim and its publication, or a republication) after the steps before
   * it, once fewer than MAX_BATCHES_IN_FLIGHT batches of subscriber work are under way: the paths that
   * publish (notifications, the sweep, republications) take turns, so the limit holds across them and
   * each publication is a batch of its own. A subscriber's work is under way from the publishing call
   * on (it starts synchronously), so the next step sees it.
   */
  private inTurn<T>(step: () => Promise<T>): Promise<T> {
    const run = this.turns.then(async () => {
      await this.subscribers.room();
      return step();
    });
    this.turns = run.catch(() => undefined);
    return run;
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.database.serviceDatabaseUrl,
      application_name: 'storefront-outbox-relay',
      keepAlive: true,
      connectionTimeoutMillis: this.database.DATABASE_CONNECT_TIMEOUT_MS,
    });
    client.on('notification', (message) => {
      if (message.payload) this.enqueue(message.payload);
    });
    client.on('error', (error) => {
      this.logger.warn(
        { err: { message: error.message } },
        'outbox listener lost its connection; relying on the sweep until it is back',
      );
      void client.end().catch(() => undefined);
      if (this.listener === client) {
        this.listener = undefined;
        this.reconnect();
      }
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (!this.running) {
      await client.end().catch(() => undefined);
      return;
    }
    this.listener = client;
  }

  /** Listens again, backing off up to 30 s between tries, and catches up with a sweep once back. */
  private reconnect(delayMs = 1000): void {
    setTimeout(() => {
      if (!this.running || this.listener) return;
      this.listen()
        .then(() => (this.running ? this.sweeper.runOnce() : undefined))
        .catch(() => this.reconnect(Math.min(delayMs * 2, 30_000)));
    }, delayMs).unref();
  }

  // Notified ids are claimed in turns, all those heard of since the last claim at once.
  private pending = new Set<string>();
  private enqueue(id: string): void {
    // Any connection may NOTIFY this channel: a payload that is not an event id is not one of ours.
    if (!UUID.test(id)) return;
    this.pending.add(id);
    this.drain();
  }

  private drain(): void {
    this.inTurn(async () => {
      if (this.pending.size === 0) return;
      const ids = [...this.pending];
      this.pending.clear();
      const claimed = await this.dispatch(ids);
      if (claimed.length < BATCH) return;
      // More were heard of than one claim takes: the rest go in the next turn, not at the next sweep.
      const taken = new Set(claimed);
      for (const left of ids) if (!taken.has(left)) this.pending.add(left);
      this.drain();
    }).catch((error: Error) =>
      this.logger.error({ err: { message: error.message } }, 'outbox dispatch failed; the sweep will retry'),
    );
  }

  /** The subscribers that acknowledge, and which events they owe, as the JSON parameter the claim reads. */
  private subscribersParameter(): string {
    return JSON.stringify(
      this.subscribers.all.map((subscriber) => ({ name: subscriber.name, events: subscriber.events ?? null })),
    );
  }

  /**
   * Claims and marks rows (the given ids, or the oldest pending) and writes what their publication is
   * owed, in one statement, then publishes them; returns their ids. A subscriber that handles none of
   * the claimed events is owed nothing.
   */
  private async dispatch(ids: string[] | null): Promise<string[]> {
    const publication = randomUUID();
    const rows = await this.system.run(() =>
      claimUndispatched(this.system.tx, {
        ids,
        subscribers: this.subscribersParameter(),
        publication,
        ackTimeoutMs: this.config.OUTBOX_ACK_TIMEOUT_MS,
      }),
    );
    this.publish(rows, publication, null);
    return rows.map((row) => row.id);
  }

  /**
   * One batch of overdue owed rows (of the subscribers registered here): a later `due_at` for each
   * (doubling with each publication) and their events, in one statement; returns the rows taken and,
   * per row, its events.
   */
  private async overdue(): Promise<{
    taken: number;
    owed: { publication: string; subscriber: string; events: OutboxRow[] }[];
  }> {
    const names = this.subscribers.all.map((subscriber) => subscriber.name);
    const rows = await this.system.run(() => claimOverdue(this.system.tx, names, this.config.OUTBOX_ACK_TIMEOUT_MS));
    const owed = new Map<string, { publication: string; subscriber: string; events: OutboxRow[] }>();
    for (const row of rows) {
      const key = `${row.publication_id}:${row.subscriber}`;
      const entry = owed.get(key) ?? { publication: row.publication_id, subscriber: row.subscriber, events: [] };
      owed.set(key, entry);
      entry.events.push(row);
    }
    return { taken: owed.size, owed: [...owed.values()] };
  }

  /** Publishes rows (in their order: created_at, id) in one call, so that a saga sees them as one batch. */
  private publish(rows: OutboxRow[], publication: string, republishedFor: string[] | null): void {
    if (rows.length === 0) return;
    this.events.publishAll(rows.map((row) => new StoreEvent(toEnvelope(row), publication, republishedFor)));
  }
}
