import { Injectable } from '@nestjs/common';
import { acknowledgeCte, type Cursor, queryRows, ScopedDb, SystemDb, TenantDb } from '@app/core';
import type { WebhookStatus } from '../webhooks/webhook.js';
import type { AttemptRow, DeliveryRow, DeliveryStatus } from './delivery.js';

/** A delivery with what an attempt needs of its webhook. */
export interface DeliveryTarget extends DeliveryRow {
  url: string;
  webhook_status: WebhookStatus;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
}

export interface AttemptOutcome {
  attempt: number;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  responseExcerpt: string | null;
  nextAttemptAt: Date | null;
  deliveryStatus: DeliveryStatus;
}

/** A CTE that takes delivery $1 out of the parked: a statement's main query still sees the row as it was. */
const UNPARK = `WITH unparked AS (
  UPDATE webhook_deliveries SET parked_at = NULL, next_attempt_at = now() WHERE id = $1 AND status = 'pending'
    AND parked_at IS NOT NULL
)`;

/** The delivery statuses `recover` sends again. */
const RECOVERABLE = ['failed', 'cancelled', 'skipped'].map((status) => `'${status}'`).join(', ');

@Injectable()
export class DeliveryRepository {
  constructor(
    private readonly db: TenantDb,
    private readonly system: SystemDb,
    private readonly scoped: ScopedDb,
  ) {}

  /**
   * For each event, one delivery per webhook of its store subscribed to its kind: pending for an active
   * webhook, `skipped` (nothing to send, nothing due) for a disabled one, so `recover` can send it after
   * re-enabling; and the acknowledgement of the events' publications by `subscriber`, in one statement.
   * Only events acknowledged by this statement get deliveries: a republished event whose publication
   * was acknowledged already writes nothing (and deliveries are unique per event × webhook besides).
   * Returns the new pending deliveries (the ones to send) in the events' order.
   */
  async createForEvents(
    subscriber: string,
    publications: readonly string[],
    events: { id: string; store_id: string; event: string; body: string }[],
  ): Promise<{ id: string; webhook_id: string }[]> {
    const rows = await queryRows<{ id: string; webhook_id: string; status: DeliveryStatus }>(
      this.system.tx,
      `WITH event AS (
         SELECT * FROM ROWS FROM (json_to_recordset($1::json) AS (event_id uuid, store_id uuid, event text, body text))
                       WITH ORDINALITY AS e(event_id, store_id, event, body, n)
       ), ${acknowledgeCte('$2', '$3')}
       INSERT INTO webhook_deliveries (webhook_id, store_id, event_id, event, body, status, next_attempt_at)
       SELECT w.id, w.store_id, e.event_id, e.event, e.body,
              CASE WHEN w.status = 'active' THEN 'pending' ELSE 'skipped' END,
              CASE WHEN w.status = 'active' THEN now() END
         FROM event e
         JOIN acked ON acked.event_id = e.event_id
         JOIN webhooks w ON w.store_id = e.store_id AND e.event = ANY (w.events)
        ORDER BY e.n
       ON CONFLICT (event_id, webhook_id) WHERE redelivery_of IS NULL DO NOTHING
       RETURNING id, webhook_id, status`,
      // One JSON parameter: text[] parameters of JSON bodies cost the driver an escape pass per character.
      [
        JSON.stringify(events.map((e) => ({ event_id: e.id, store_id: e.store_id, event: e.event, body: e.body }))),
        subscriber,
        publications,
      ],
    );
    return rows.filter((row) => row.status === 'pending').map(({ id, webhook_id }) => ({ id, webhook_id }));
  }

  /** A delivery of one event to one webhook outside the event flow: a test event or a redelivery. */
  async createOne(
    webhookId: string,
    storeId: string,
    eventId: string,
    event: string,
    body: string,
    redeliveryOf: string | null,
  ): Promise<DeliveryRow> {
    const rows = await queryRows<DeliveryRow>(
      this.db.tx,
      `INSERT INTO webhook_deliveries (webhook_id, store_id, event_id, event, body, redelivery_of)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
      [webhookId, storeId, eventId, event, body, redeliveryOf],
    );
    return rows[0];
  }

  async findOfWebhook(webhookId: string, deliveryId: string): Promise<DeliveryRow | null> {
    return (
      (
        await queryRows<DeliveryRow>(this.db.tx, 'SELECT * FROM webhook_deliveries WHERE id = $1 AND webhook_id = $2', [
          deliveryId,
          webhookId,
        ])
      )[0] ?? null
    );
  }

  /**
   * Redelivers, oldest first, each event whose latest delivery to the webhook since `since` failed, was
   * cancelled or was skipped (RECOVERABLE): a new pending delivery with `redelivery_of` that one.
   */
  async redeliverFailedSince(webhookId: string, since: Date, limit: number): Promise<DeliveryRow[]> {
    return queryRows<DeliveryRow>(
      this.db.tx,
      `WITH latest AS (
         SELECT DISTINCT ON (event_id) * FROM webhook_deliveries
          WHERE webhook_id = $1 AND created_at >= $2
          ORDER BY event_id, created_at DESC, id DESC
       ), chosen AS (
         SELECT * FROM latest WHERE status IN (${RECOVERABLE}) ORDER BY created_at, id LIMIT $3
       )
       INSERT INTO webhook_deliveries (webhook_id, store_id, event_id, event, body, redelivery_of)
       SELECT webhook_id, store_id, event_id, event, body, id FROM chosen ORDER BY created_at, id
       RETURNING *`,
      [webhookId, since, limit],
    );
  }

  /**
   * Whether some event's latest delivery to the webhook since `since` failed, was cancelled or skipped
   * (what recover would still send).
   */
  async anyFailedSince(webhookId: string, since: Date): Promise<boolean> {
    const rows = await queryRows<{ found: boolean }>(
      this.db.tx,
      `SELECT EXISTS (
         SELECT 1 FROM (
           SELECT DISTINCT ON (event_id) status FROM webhook_deliveries
            WHERE webhook_id = $1 AND created_at >= $2
            ORDER BY event_id, created_at DESC, id DESC
         ) latest WHERE status IN (${RECOVERABLE})
       ) AS found`,
      [webhookId, since],
    );
    return rows[0].found;
  }

  async pageOfWebhook(
    webhookId: string,
    status: DeliveryStatus | undefined,
    limit: number,
    after: Cursor | null,
  ): Promise<DeliveryRow[]> {
    return queryRows<DeliveryRow>(
      this.db.tx,
      `SELECT * FROM webhook_deliveries
        WHERE webhook_id = $1 AND ($2::text IS NULL OR status = $2)
          AND ($3::timestamptz IS NULL OR (created_at, id) < ($3::timestamptz, $4::uuid))
        ORDER BY created_at DESC, id DESC LIMIT $5`,
      [webhookId, status ?? null, after?.createdAt ?? null, after?.id ?? null, limit + 1],
    );
  }

  async attemptsOf(deliveryIds: string[]): Promise<AttemptRow[]> {
    return queryRows<AttemptRow>(
      this.db.tx,
      'SELECT * FROM webhook_attempts WHERE delivery_id = ANY ($1::uuid[]) ORDER BY delivery_id, attempt',
      [deliveryIds],
    );
  }

  /**
   * The delivery with its webhook. `unpark`: the gate has handed it a slot, so it is parked no longer
   * (and due now, which keeps the lost-job sweep off it while it is sent), in the same statement.
   */
  async findTarget(deliveryId: string, unpark = false): Promise<DeliveryTarget | null> {
    const rows = await queryRows<DeliveryTarget>(
      this.system.tx,
      `${unpark ? UNPARK : ''}
       SELECT d.*, w.url, w.status AS webhook_status, w.secret_sealed, w.previous_secret_sealed,
         w.previous_secret_expires_at
         FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
        WHERE d.id = $1`,
      [deliveryId],
    );
    return rows[0] ?? null;
  }

  /** Takes a delivery out of the parked (see findTarget). */
  async unpark(deliveryId: string): Promise<void> {
    await queryRows(this.system.tx, `${UNPARK} SELECT 1`, [deliveryId]);
  }

  /**
   * Records an attempt and the delivery's new state, in one statement; false when another worker
   * recorded this attempt first.
   */
  async recordAttempt(delivery: DeliveryRow, outcome: AttemptOutcome): Promise<boolean> {
    const rows = await queryRows<{ recorded: number }>(
      this.system.tx,
      `WITH attempt AS (
         INSERT INTO webhook_attempts (delivery_id, store_id, attempt, started_at, duration_ms, status_code, error,
           response_excerpt, next_attempt_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (delivery_id, attempt) DO NOTHING RETURNING delivery_id
       ), delivery AS (
         UPDATE webhook_deliveries d
            SET status = $10, attempt_count = $3, next_attempt_at = $9, last_status_code = $6, parked_at = NULL,
              updated_at = now()
           FROM attempt WHERE d.id = attempt.delivery_id AND d.status = 'pending'
       )
       SELECT count(*)::int AS recorded FROM attempt`,
      [
        delivery.id,
        delivery.store_id,
        outcome.attempt,
        outcome.startedAt,
        outcome.durationMs,
        outcome.statusCode,
        outcome.error,
        outcome.responseExcerpt,
        outcome.nextAttemptAt,
        outcome.deliveryStatus,
      ],
    );
    return rows[0].recorded > 0;
  }

  /** Stops a disabled webhook's pending deliveries. */
  async cancelPending(webhookId: string): Promise<void> {
    await queryRows(
      this.scoped.tx,
      `UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = ` +
        `NULL, updated_at = now() WHERE webhook_id = $1 AND status = 'pending'`,
      [webhookId],
    );
  }
}
