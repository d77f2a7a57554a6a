import { Inject, Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { EventBus } from '@nestjs/cqrs';
import pg from 'pg';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { runtimeConfig, type RuntimeConfig } from '../config/runtime.config.js';
import { databaseConfig, type DatabaseConfig } from '../database/database.config.js';
import { SERVICE_CONNECTION } from '../database/db-scope.js';
import { queryRows } from '../database/query-rows.js';
import { MetricsService } from '../observability/metrics.service.js';
import { PeriodicTask } from '../scheduling/periodic-task.js';
import { outboxConfig, type OutboxConfig } from './outbox.config.js';
import { StoreEventSubscribers } from './store-event-subscribers.js';
import { StoreEvent, type StoreEventEnvelope } from './store-event.js';

const CHANNEL = 'outbox_events';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const BATCH = 200;
/** The longest wait between two publications of an event still owed an acknowledgement. */
export const MAX_REPUBLISH_DELAY_MS = 60 * 60 * 1000;

interface OutboxRow {
  id: string;
  event: string;
  store_id: string;
  data: Record<string, unknown>;
  created_at: Date;
}

/**
 * Publishes committed outbox rows on the EventBus, and publishes them again to the acknowledging
 * subscribers (`StoreEventSubscribers`) that have not acknowledged them in time.
 *
 * It hears of each commit through LISTEN/NOTIFY (PostgreSQL delivers the notification at commit,
 * never for a rollback) and sweeps on a timer for rows a lost notification, a crash or a restart left
 * undispatched. A claim is one statement: it marks the rows dispatched, sets when they are owed their
 * acknowledgements (`republish_at`, OUTBOX_ACK_TIMEOUT_MS ahead) and answers them, taking them with
 * FOR UPDATE SKIP LOCKED so that several relays never publish a row at the same time. The rows are
 * then published, all in one call, and the relay moves on: subscribers work after the claim has
 * committed, each in its own statements, and acknowledge there. The same sweep takes the events whose
 * `republish_at` has passed: those some subscriber still owes are published again for those
 * subscribers only (with a doubling delay before the next time, up to MAX_REPUBLISH_DELAY_MS); the
 * others are done (`republish_at` cleared). Runs in the worker (APP_ROLE worker or all), on the service
 * role's connection.
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
  private draining: Promise<void> = Promise.resolve();

  constructor(
    @InjectDataSource(SERVICE_CONNECTION) private readonly dataSource: DataSource,
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
    await this.draining;
  }

  /** Publishes every undispatched row, oldest first, in batches; answers how many. */
  async sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      await this.subscribers.room();
      const published = await this.dispatch(null);
      total += published;
      if (published < BATCH) return total;
    }
  }

  /**
   * Publishes again, to the subscribers that owe their acknowledgement, every event whose
   * `republish_at` has passed, and marks done those owed nothing; answers how many it published.
   */
  async republishOverdue(): Promise<number> {
    let total = 0;
    for (;;) {
      await this.subscribers.room();
      const { taken, published } = await this.republishBatch();
      total += published;
      if (taken < BATCH) return total;
    }
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
      this.logger.warn({ err: { message: error.message } }, 'outbox listener lost its connection; relying on the sweep until it is back');
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

  // Notifications are handled one batch at a time, in arrival order.
  private pending = new Set<string>();
  private enqueue(id: string): void {
    // Any connection may NOTIFY this channel: a payload that is not an event id is not one of ours.
    if (!UUID.test(id)) return;
    this.pending.add(id);
    this.draining = this.draining.then(async () => {
      await this.subscribers.room();
      if (this.pending.size === 0) return;
      const ids = [...this.pending];
      this.pending.clear();
      await this.dispatch(ids).catch((error: Error) =>
        this.logger.error({ err: { message: error.message } }, 'outbox dispatch failed; the sweep will retry'),
      );
    });
  }

  /** The subscribers that acknowledge, and which events they owe, as the JSON parameter the statements read. */
  private subscribersParameter(): string {
    return JSON.stringify(this.subscribers.all.map((subscriber) => ({ name: subscriber.name, events: subscriber.events ?? null })));
  }

  /**
   * Claims and marks rows (the given ids, or the oldest pending) in one statement, then publishes them;
   * answers how many. An event no subscriber acknowledges is owed nothing (`republish_at` stays null).
   */
  private async dispatch(ids: string[] | null): Promise<number> {
    const rows = await queryRows<OutboxRow>(
      this.dataSource.manager,
      `WITH subscriber AS (SELECT * FROM json_to_recordset($2::json) AS s(name text, events text[])),
       claimed AS (
         UPDATE outbox_events e
            SET dispatched_at = now(), publications = 1,
                republish_at = CASE WHEN EXISTS (SELECT 1 FROM subscriber s WHERE s.events IS NULL OR e.event = ANY (s.events))
                                    THEN now() + make_interval(secs => $3::double precision / 1000) END
          WHERE e.id IN (SELECT id FROM outbox_events
                          WHERE dispatched_at IS NULL AND ($1::uuid[] IS NULL OR id = ANY ($1::uuid[]))
                          ORDER BY created_at, id
                          LIMIT ${BATCH}
                          FOR UPDATE SKIP LOCKED)
         RETURNING e.id, e.event, e.store_id, e.data, e.created_at
       )
       SELECT * FROM claimed ORDER BY created_at, id`,
      [ids, this.subscribersParameter(), this.config.OUTBOX_ACK_TIMEOUT_MS],
    );
    this.publish(rows, null);
    return rows.length;
  }

  /**
   * One batch of overdue events: which subscribers still owe each its acknowledgement (of those that
   * handle its kind), a later `republish_at` for those owed one (doubling with each publication) and
   * none for the rest, in one statement; then the republication, one call per set of subscribers.
   */
  private async republishBatch(): Promise<{ taken: number; published: number }> {
    const rows = await queryRows<OutboxRow & { owed: string[] | null }>(
      this.dataSource.manager,
      `WITH subscriber AS (SELECT * FROM json_to_recordset($1::json) AS s(name text, events text[])),
       due AS (
         SELECT id, event FROM outbox_events
          WHERE republish_at <= now()
          ORDER BY republish_at
          LIMIT ${BATCH}
          FOR UPDATE SKIP LOCKED
       ), owing AS (
         SELECT due.id, array_agg(s.name ORDER BY s.name) FILTER (WHERE s.name IS NOT NULL) AS owed
           FROM due
           LEFT JOIN subscriber s
             ON (s.events IS NULL OR due.event = ANY (s.events))
            AND NOT EXISTS (SELECT 1 FROM outbox_acks a WHERE a.event_id = due.id AND a.subscriber = s.name)
          GROUP BY due.id
       ), marked AS (
         UPDATE outbox_events e
            SET republish_at = CASE WHEN owing.owed IS NOT NULL
                                    THEN now() + make_interval(secs => least($2::double precision * 2 ^ e.publications, $3) / 1000) END,
                publications = e.publications + (owing.owed IS NOT NULL)::int
           FROM owing
          WHERE e.id = owing.id
         RETURNING e.id, e.event, e.store_id, e.data, e.created_at, owing.owed
       )
       SELECT * FROM marked ORDER BY created_at, id`,
      [this.subscribersParameter(), this.config.OUTBOX_ACK_TIMEOUT_MS, MAX_REPUBLISH_DELAY_MS],
    );
    const owed = rows.filter((row) => row.owed !== null);
    const bySubscribers = new Map<string, typeof owed>();
    for (const row of owed) {
      const key = row.owed!.join(',');
      const group = bySubscribers.get(key);
      if (group) group.push(row);
      else bySubscribers.set(key, [row]);
    }
    for (const [key, group] of bySubscribers) {
      const names = key.split(',');
      for (const name of names) this.metrics.storeEventsRepublished.inc({ subscriber: name }, group.length);
      this.logger.warn(
        { subscribers: names, events: group.map((row) => row.id) },
        `${group.length} store events not acknowledged in time: published again for ${names.join(', ')}`,
      );
      this.publish(group, names);
    }
    return { taken: rows.length, published: owed.length };
  }

  /** Publishes rows (in their order: created_at, id) in one call, so that a saga sees them as one batch. */
  private publish(rows: OutboxRow[], republishedFor: string[] | null): void {
    if (rows.length === 0) return;
    this.events.publishAll(rows.map((row) => new StoreEvent(toEnvelope(row), republishedFor)));
  }
}

export function toEnvelope(row: OutboxRow): StoreEventEnvelope {
  return { id: row.id, event: row.event, created_at: row.created_at.toISOString(), store_id: row.store_id, data: row.data };
}
