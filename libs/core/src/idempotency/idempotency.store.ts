import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { Propagation } from '@nestjs-cls/transactional';
import { runtimeConfig, type RuntimeConfig } from '../config/runtime.config.js';
import { SecretBox } from '../crypto/secret-box.js';
import { TenantDb, SystemDb } from '../tenancy/db-handles.js';
import { queryRows } from '../database/raw-sql.js';
import { PeriodicTask } from '../scheduling/periodic-task.js';
import { ApiError } from '../errors/api-error.js';

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

/**
 * What a claim found. `claimed` says where the claim lives: `atomic` when it was written in the request's
 * transaction (it commits with the route's change and the kept answer, or rolls back with them), else
 * committed at once on its own (routes that commit in steps).
 */
export type IdempotencyClaim = ClaimedKey | ReplayedKey | RefusedKey;
type RefusedKey = { kind: 'in_progress' } | { kind: 'mismatch' } | { kind: 'unreplayable' };

/** Which request a kept answer belongs to: the row it lives in and what it answered. */
export interface AnswerBinding {
  caller: string;
  key: string;
  route: string;
  fingerprint: string;
}

/** The associated data a kept answer is sealed with, so that its bytes open in its own row only. */
function answerAad(binding: AnswerBinding): Buffer {
  return Buffer.from([binding.caller, binding.key, binding.route, binding.fingerprint].join('\n'), 'utf8');
}
interface ReplayedKey {
  kind: 'replay';
  answer: KeptAnswer;
}
interface ClaimedKey {
  kind: 'claimed';
  atomic: boolean;
}

/** How long a request waits for the lock of a key another transaction holds before it answers 409. */
export const IDEMPOTENCY_LOCK_WAIT_MS = 100;
const LOCK_NOT_AVAILABLE = '55P03';
/** A claim the database refuses: a row of this caller and key that row-level security keeps from the caller. */
const REFUSED_CLAIM = new Set(['42501', '23505']);
export const HELD_MESSAGE = 'This Idempotency-Key cannot be used by this caller; use a new key';

/**
 * Idempotency keys in PostgreSQL, per caller (`idempotencyCaller`) and bound to the user: a user sees only
 * its own keys. In a route's request transaction, the claim is a row of that transaction, so the change,
 * the claim and the kept answer commit together or not at all; a second request with the key waits for
 * that row at most IDEMPOTENCY_LOCK_WAIT_MS, then answers 409 (or replays, once the first committed). A
 * route that commits in steps claims in a transaction of its own, committed at once, so that a second
 * request sees the claim whichever instance serves it. Worker processes delete expired keys (and the
 * answers kept with them) every hour.
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
    private readonly box: SecretBox,
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
            WHERE created_at < clock_timestamp() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})
              LIMIT ${PURGE_BATCH})
         RETURNING 1`,
      );
      purged += deleted.length;
      if (deleted.length < PURGE_BATCH) return purged;
    }
  }

  /**
   * Claims `key` for this caller and request, or tells what an earlier request with it left: its
   * answer (same route and body), `mismatch` (another route or body) or `in_progress`. A key older
   * than 24 h, or a claim left pending for 5 minutes (its process died), is claimed anew. Inside a
   * transaction (the request's) the claim is part of it; outside, it commits at once.
   */
  claim(caller: string, key: string, route: string, fingerprint: string): Promise<IdempotencyClaim> {
    if (this.db.inTransaction) return this.claimWithin(caller, key, route, fingerprint);
    const claimAlone = () => this.claimInTransaction(caller, key, route, fingerprint, false);
    return this.db.transaction(claimAlone, Propagation.RequiresNew);
  }

  /**
   * Claims in the open transaction, waiting at most IDEMPOTENCY_LOCK_WAIT_MS for a row another
   * transaction holds (a request with the same key, still running): then `in_progress`, and the
   * transaction is spent (the lock timeout aborted it), which the 409 rolls back.
   */
  private async claimWithin(caller: string, key: string, route: string, print: string): Promise<IdempotencyClaim> {
    const [{ previous }] = await queryRows<{ previous: string }>(
      this.db.tx,
      `SELECT previous, set_config('lock_timeout', $1, true)
         FROM (SELECT current_setting('lock_timeout') AS previous OFFSET 0) AS setting`,
      [`${IDEMPOTENCY_LOCK_WAIT_MS}ms`],
    );
    let claim: IdempotencyClaim;
    try {
      claim = await this.claimInTransaction(caller, key, route, print, true);
    } catch (error) {
      if ((error as { code?: unknown }).code === LOCK_NOT_AVAILABLE) return { kind: 'in_progress' };
      throw error;
    }
    await queryRows(this.db.tx, `SELECT set_config('lock_timeout', $1, true)`, [previous]);
    return claim;
  }

  private async claimInTransaction(
    caller: string,
    key: string,
    route: string,
    fingerprint: string,
    atomic: boolean,
  ): Promise<IdempotencyClaim> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const claimed = await this.insertClaim(caller, key, route, fingerprint);
      if (claimed) return { kind: 'claimed', atomic };
      const [existing] = await queryRows<{
        route: string;
        fingerprint: string;
        state: string;
        response_status: number | null;
        response_headers: Record<string, string> | null;
        response_body: Buffer | null;
      }>(
        this.db.tx,
        `SELECT route, fingerprint, state, response_status, response_headers, response_body
           FROM idempotency_keys WHERE caller = $1 AND key = $2`,
        [caller, key],
      );
      // Released between the two statements: try to claim it again.
      if (!existing) continue;
      if (existing.route !== route || existing.fingerprint !== fingerprint) return { kind: 'mismatch' };
      if (existing.state !== 'done') return { kind: 'in_progress' };
      // Only what this store sealed for this very row opens: anything else is never replayed.
      const aad = answerAad({ caller, key, route, fingerprint });
      const body = this.box.openAnswer(existing.response_body ?? Buffer.alloc(0), aad);
      if (body === null) return { kind: 'unreplayable' };
      const { response_status: status, response_headers: headers } = existing;
      return { kind: 'replay', answer: { status: status!, headers: headers!, body } };
    }
    return { kind: 'in_progress' };
  }

  /**
   * Claims the key anew (a new key, one older than 24 h, or a claim abandoned for 5 minutes); returns
   * whether it did. A row of this caller and key that the caller may not see or take over (written by
   * someone else) is refused by the database: 409 CONFLICT rather than a failure of the server.
   */
  private async insertClaim(caller: string, key: string, route: string, fingerprint: string): Promise<boolean> {
    const ABANDONED = IDEMPOTENCY_ABANDONED_AFTER_MINUTES;
    try {
      const claimed = await queryRows(
        this.db.tx,
        `INSERT INTO idempotency_keys (caller, user_id, key, route, fingerprint)
         VALUES ($1, COALESCE(app_user_id(), app_api_key_id()), $2, $3, $4)
         ON CONFLICT (caller, key) DO UPDATE
            SET route = EXCLUDED.route, fingerprint = EXCLUDED.fingerprint, state = 'pending',
                response_status = NULL, response_headers = NULL, response_body = NULL, created_at = clock_timestamp()
          WHERE idempotency_keys.created_at < clock_timestamp() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})
             OR (idempotency_keys.state = 'pending'
                 AND idempotency_keys.created_at < clock_timestamp() - make_interval(mins => ${ABANDONED}))
         RETURNING 1`,
        [caller, key, route, fingerprint],
      );
      return claimed.length > 0;
    } catch (error) {
      if (REFUSED_CLAIM.has((error as { code?: string }).code ?? '')) throw ApiError.conflict(HELD_MESSAGE);
      throw error;
    }
  }

  /**
   * Keeps the successful answer for replays: in the open transaction when there is one (the request's,
   * so it commits with the route's change), else at once.
   */
  async complete(binding: AnswerBinding, answer: KeptAnswer): Promise<void> {
    await queryRows(
      this.db.tx,
      `UPDATE idempotency_keys SET state = 'done', response_status = $3, response_headers = $4, response_body = $5
        WHERE caller = $1 AND key = $2`,
      // Sealed, under a key kept for answers and bound to this row: a kept answer may hold what the server
      // shows once (a store key's secret, a webhook's secret, an invitation token), which a reader of the
      // table must not learn, and no blob copied from another row or table may be replayed.
      [binding.caller, binding.key, answer.status, JSON.stringify(answer.headers), this.sealed(answer.body, binding)],
    );
  }

  private sealed(body: Buffer, binding: AnswerBinding): Buffer {
    return this.box.sealAnswer(body, answerAad(binding));
  }

  /**
   * Forgets a claim whose request failed, so the same key can be tried again. An atomic claim needs
   * nothing: it rolls back with the request's transaction.
   */
  async release(caller: string, key: string, claim: { atomic: boolean }): Promise<void> {
    if (claim.atomic) return;
    const sql = `DELETE FROM idempotency_keys WHERE caller = $1 AND key = $2 AND state = 'pending'`;
    await queryRows(this.db.tx, sql, [caller, key]);
  }
}
