import { Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { EventBus } from '@nestjs/cqrs';
import pg from 'pg';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config.js';
import { SERVICE_CONNECTION } from '../database/db-scope.js';
import { PeriodicTask } from '../scheduling/periodic-task.js';
import { StoreEvent, type StoreEventEnvelope } from './store-event.js';

const CHANNEL = 'outbox_events';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Work a batch of events must get done before they are marked dispatched; idempotent on the envelope
 * ids. A batch, not one event at a time: per-event statements were what limited the relay's rate.
 */
export type StoreEventConsumer = (envelopes: StoreEventEnvelope[]) => Promise<void>;
const BATCH = 200;

interface OutboxRow {
  id: string;
  event: string;
  store_id: string;
  data: Record<string, unknown>;
  created_at: Date;
}

/**
 * Publishes committed outbox rows on the EventBus. It hears of each commit through LISTEN/NOTIFY
 * (PostgreSQL delivers the notification at commit, never for a rollback) and sweeps on a timer for
 * rows a lost notification, a crash or a restart left undispatched. Claims use FOR UPDATE SKIP
 * LOCKED, so several processes can relay without publishing a row twice at the same time. Registered
 * consumers (the webhook dispatch) run, awaited, before a row is marked; then the EventBus hears of it.
 * Runs in the worker (APP_ROLE worker or all), on the service role's connection.
 */
@Injectable()
export class OutboxRelay implements BeforeApplicationShutdown {
  private readonly logger = new Logger(OutboxRelay.name);
  private readonly consumers: StoreEventConsumer[] = [];
  private listener?: pg.Client;
  private readonly sweeper = new PeriodicTask('outbox sweep', async () => ({ relayed: await this.sweep() }), this.logger);
  private running = false;
  private draining: Promise<void> = Promise.resolve();

  constructor(
    @InjectDataSource(SERVICE_CONNECTION) private readonly dataSource: DataSource,
    private readonly events: EventBus,
    private readonly config: AppConfig,
  ) {}

  /**
   * Whether this process relays (worker and all-in-one processes with OUTBOX_RELAY on). The root module
   * starts the relay once the whole application has bootstrapped: CoreModule is global, so its own
   * bootstrap hooks run before @nestjs/cqrs registers the command handlers the first sweep dispatches to.
   */
  get enabled(): boolean {
    return this.config.APP_ROLE !== 'api' && this.config.OUTBOX_RELAY;
  }

  /** Stops before the connections close, so a batch under way is marked (or left for the next relay) cleanly. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  /**
   * Adds a consumer that must finish before an event counts as dispatched (the webhook dispatch).
   * EventBus subscribers, by contrast, are told after the fact and may miss an event if they fail.
   */
  registerConsumer(consumer: StoreEventConsumer): void {
    this.consumers.push(consumer);
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

  /** Publishes every undispatched row, oldest first, in batches. */
  async sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const published = await this.dispatch(null);
      total += published;
      if (published < BATCH) return total;
    }
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.config.serviceDatabaseUrl,
      application_name: 'storefront-outbox-relay',
      keepAlive: true,
      connectionTimeoutMillis: this.config.DATABASE_CONNECT_TIMEOUT_MS,
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
      if (this.pending.size === 0) return;
      const ids = [...this.pending];
      this.pending.clear();
      await this.dispatch(ids).catch((error: Error) =>
        this.logger.error({ err: { message: error.message } }, 'outbox dispatch failed; the sweep will retry'),
      );
    });
  }

  /** Claims, publishes and marks rows (the given ids, or the oldest pending); answers how many. */
  private async dispatch(ids: string[] | null): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const rows: OutboxRow[] = await manager.query(
        `SELECT id, event, store_id, data, created_at FROM outbox_events
          WHERE dispatched_at IS NULL AND ($1::uuid[] IS NULL OR id = ANY ($1::uuid[]))
          ORDER BY created_at, id
          LIMIT ${BATCH}
          FOR UPDATE SKIP LOCKED`,
        [ids],
      );
      const envelopes = rows.map(toEnvelope);
      // Consumers finish before the rows are marked: if one fails or the process dies, the rows stay
      // undispatched and are offered again (consumers are idempotent on the envelope id).
      if (envelopes.length > 0) {
        for (const consumer of this.consumers) await consumer(envelopes);
      }
      for (const envelope of envelopes) this.events.publish(new StoreEvent(envelope));
      if (rows.length > 0) {
        await manager.query('UPDATE outbox_events SET dispatched_at = now() WHERE id = ANY ($1::uuid[])', [rows.map((row) => row.id)]);
      }
      return rows.length;
    });
  }
}

export function toEnvelope(row: OutboxRow): StoreEventEnvelope {
  return { id: row.id, event: row.event, created_at: row.created_at.toISOString(), store_id: row.store_id, data: row.data };
}
