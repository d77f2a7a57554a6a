import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { EventBus } from '@nestjs/cqrs';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config.js';
import { StoreEvent, type StoreEventEnvelope } from './store-event.js';

const CHANNEL = 'outbox_events';
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
 * LOCKED, so several processes can relay without publishing a row twice at the same time.
 * Runs in the worker (APP_ROLE worker or all).
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OutboxRelay.name);
  private listener?: pg.Client;
  private sweepTimer?: NodeJS.Timeout;
  private running = false;
  private draining: Promise<void> = Promise.resolve();

  constructor(
    private readonly dataSource: DataSource,
    private readonly events: EventBus,
    private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.APP_ROLE !== 'api' && this.config.OUTBOX_RELAY) await this.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  /** Starts listening and sweeping; catches up on whatever is pending. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.listen();
    this.sweepTimer = setInterval(() => void this.sweep(), this.config.OUTBOX_SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
    await this.sweep();
  }

  /** Stops listening and sweeping (tests use it to lose the immediate publish on purpose). */
  async stop(): Promise<void> {
    this.running = false;
    clearInterval(this.sweepTimer);
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
    const client = new pg.Client({ connectionString: this.config.DATABASE_URL, application_name: 'storefront-outbox-relay' });
    client.on('notification', (message) => {
      if (message.payload) this.enqueue(message.payload);
    });
    client.on('error', (error) => {
      this.logger.warn({ err: { message: error.message } }, 'outbox listener lost its connection; relying on the sweep until it is back');
      if (this.listener === client) this.listener = undefined;
      setTimeout(() => void (this.running && !this.listener && this.listen().catch(() => undefined)), 1000).unref();
    });
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    this.listener = client;
  }

  // Notifications are handled one batch at a time, in arrival order.
  private pending = new Set<string>();
  private enqueue(id: string): void {
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
      for (const row of rows) this.events.publish(new StoreEvent(toEnvelope(row)));
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
