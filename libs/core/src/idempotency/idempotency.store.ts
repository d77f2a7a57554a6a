import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { Propagation } from '@nestjs-cls/transactional';
import { runtimeConfig, type RuntimeConfig } from '../config/runtime.config.js';
import { TenantDb, SystemDb } from '../database/scoped-db.js';
import { queryRows } from '../database/query-rows.js';
import { PeriodicTask } from '../scheduling/periodic-task.js';

/** How long a key is remembered, and how long a claim may stay unfinished before it counts as abandoned. */
export const IDEMPOTENCY_TTL_HOURS = 24;
export const IDEMPOTENCY_ABANDONED_AFTER_MINUTES = 5;
/** How often worker processes delete expired keys, and how many rows one statement deletes. */
const PURGE_INTERVAL_MS = 60 * 60 * 1000;
const PURGE_BATCH = 5000;

/** A successful answer as it was sent: its status, the headers a replay repeats, and the body's exact bytes. */
export interface KeptAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export type IdempotencyClaim =
  { kind: 'claimed' } | { kind: 'replay'; answer: KeptAnswer } | { kind: 'in_progress' } | { kind: 'mismatch' };

/**
 * Idempotency keys in PostgreSQL, each step in a transaction of its own (bound to the user: a user
 * sees only its own keys): a claim commits at once, so a second request with the same key sees it
 * whichever instance serves it. Worker processes delete expired keys (and the answers kept with them) every hour.
 */
@Injectable()
export class IdempotencyStore implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly purge = new PeriodicTask(
    'idempotency key purge',
    async () => ({ purged: await this.purgeExpired() }),
    new Logger(IdempotencyStore.name),
  );

  constructor(
    private readonly db: TenantDb,
    private readonly system: SystemDb,
    @Inject(runtimeConfig.KEY) private readonly config: RuntimeConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.APP_ROLE !== 'api') this.purge.start(PURGE_INTERVAL_MS);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.purge.stop();
  }

  /** Deletes the keys older than IDEMPOTENCY_TTL_HOURS, in batches; returns how many went. */
  async purgeExpired(): Promise<number> {
    return this.system.run(() => this.purgeBatches());
  }

  private async purgeBatches(): Promise<number> {
    let purged = 0;
    for (;;) {
      const deleted = await queryRows(
        this.system.tx,
        `DELETE FROM idempotency_keys WHERE ctid IN (
           SELECT ctid FROM idempotency_keys
            WHERE created_at < clock_timestamp() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS}) LIMIT ${PURGE_BATCH})
         RETURNING 1`,
      );
      purged += deleted.length;
      if (deleted.length < PURGE_BATCH) return purged;
    }
  }

  /**
   * Claims `key` for this user and request, or tells what an earlier request with it left: its
   * answer (same route and body), `mismatch` (another route or body) or `in_progress`. A key older
   * than 24 h, or a claim abandoned for 5 minutes (its process died), is claimed anew.
   */
  claim(userId: string, key: string, route: string, fingerprint: string): Promise<IdempotencyClaim> {
    return this.db.transaction(() => this.claimInTransaction(userId, key, route, fingerprint), Propagation.RequiresNew);
  }

  private async claimInTransaction(userId: string, key: string, route: string, fingerprint: string): Promise<IdempotencyClaim> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const claimed = await queryRows(
        this.db.tx,
        `INSERT INTO idempotency_keys (user_id, key, route, fingerprint) VALUES ($1, $2, $3, $4)
         ON CONFLICT (user_id, key) DO UPDATE
            SET route = EXCLUDED.route, fingerprint = EXCLUDED.fingerprint, state = 'pending',
                response_status = NULL, response_headers = NULL, response_body = NULL, created_at = clock_timestamp()
          WHERE idempotency_keys.created_at < clock_timestamp() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})
             OR (idempotency_keys.state = 'pending'
                 AND idempotency_keys.created_at < clock_timestamp() - make_interval(mins => ${IDEMPOTENCY_ABANDONED_AFTER_MINUTES}))
         RETURNING 1`,
        [userId, key, route, fingerprint],
      );
      if (claimed.length > 0) return { kind: 'claimed' };
      const [existing] = await queryRows<{
        route: string;
        fingerprint: string;
        state: string;
        response_status: number | null;
        response_headers: Record<string, string> | null;
        response_body: Buffer | null;
      }>(
        this.db.tx,
        `SELECT route, fingerprint, state, response_status, response_headers, response_body FROM idempotency_keys WHERE user_id = $1 AND key = $2`,
        [userId, key],
      );
      // Released between the two statements: try to claim it again.
      if (!existing) continue;
      if (existing.route !== route || existing.fingerprint !== fingerprint) return { kind: 'mismatch' };
      if (existing.state !== 'done') return { kind: 'in_progress' };
      return {
        kind: 'replay',
        answer: { status: existing.response_status!, headers: existing.response_headers!, body: existing.response_body! },
      };
    }
    return { kind: 'in_progress' };
  }

  /** Keeps the successful answer for replays. */
  async complete(userId: string, key: string, answer: KeptAnswer): Promise<void> {
    await queryRows(
      this.db.tx,
      `UPDATE idempotency_keys SET state = 'done', response_status = $3, response_headers = $4, response_body = $5
        WHERE user_id = $1 AND key = $2`,
      [userId, key, answer.status, JSON.stringify(answer.headers), answer.body],
    );
  }

  /** Forgets a claim whose request failed, so the same key can be tried again. */
  async release(userId: string, key: string): Promise<void> {
    await queryRows(this.db.tx, `DELETE FROM idempotency_keys WHERE user_id = $1 AND key = $2 AND state = 'pending'`, [userId, key]);
  }
}
