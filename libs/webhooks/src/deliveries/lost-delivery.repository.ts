import { Injectable } from '@nestjs/common';
import { queryRows, SystemDb } from '@app/core';

/**
 * The SQL of LostDeliverySweep: which pending deliveries lost their job, and which parked ones the gate
 * no longer knows. Runs in the system's context (the sweep's `system.run`).
 */
@Injectable()
export class LostDeliveryRepository {
  constructor(private readonly system: SystemDb) {}

  /**
   * Marks deliveries parked in the gate (their webhook busy or its circuit open), unless their attempt
   * was made meanwhile: the lost-job sweep then leaves them to the gate. One statement for all.
   */
  async park(attempts: { deliveryId: string; attempt: number }[]): Promise<number> {
    const rows = await queryRows<{ id: string }>(
      this.system.tx,
      `UPDATE webhook_deliveries d SET parked_at = now()
         FROM unnest($1::uuid[], $2::int[]) AS p(id, attempt)
        WHERE d.id = p.id AND d.status = 'pending' AND d.attempt_count < p.attempt AND d.parked_at IS NULL
       RETURNING d.id`,
      [attempts.map((a) => a.deliveryId), attempts.map((a) => a.attempt)],
    );
    return rows.length;
  }

  /**
   * Claims up to `limit` pending deliveries, not parked, whose attempt is `lostAfterMs` overdue: their job
   * was lost. Each is due again now, so the next claim comes LOST_JOB_AFTER_MS later; rows another
   * worker's sweep holds are skipped. Returns them with the attempts each has made.
   */
  async claimLost(lostAfterMs: number, limit: number): Promise<{ id: string; attempt_count: number }[]> {
    return queryRows(
      this.system.tx,
      `UPDATE webhook_deliveries SET next_attempt_at = now()
        WHERE id IN (SELECT id FROM webhook_deliveries
                      WHERE status = 'pending' AND parked_at IS NULL
                        AND next_attempt_at < now() - make_interval(secs => $1)
                      ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING id, attempt_count`,
      [lostAfterMs / 1000, limit],
    );
  }

  /** How many pending deliveries each webhook has had parked for longer than `graceMs`. */
  async parkedCounts(graceMs: number): Promise<{ webhook_id: string; parked: number }[]> {
    return queryRows(
      this.system.tx,
      `SELECT webhook_id, count(*)::int AS parked FROM webhook_deliveries
        WHERE status = 'pending' AND parked_at < now() - make_interval(secs => $1) GROUP BY webhook_id`,
      [graceMs / 1000],
    );
  }

  /** A webhook's deliveries parked for longer than `graceMs`, oldest first, with the attempt each waits to make. */
  async parkedOf(webhookId: string, graceMs: number, limit: number): Promise<{ id: string; attempt: number }[]> {
    return queryRows(
      this.system.tx,
      `SELECT id, attempt_count + 1 AS attempt FROM webhook_deliveries
        WHERE webhook_id = $1 AND status = 'pending' AND parked_at < now() - make_interval(secs => $2)
        ORDER BY next_attempt_at, id LIMIT $3`,
      [webhookId, graceMs / 1000, limit],
    );
  }

  /** Of these deliveries, the ones still pending and parked. */
  async stillParked(deliveryIds: string[]): Promise<Set<string>> {
    const rows = await queryRows<{ id: string }>(
      this.system.tx,
      `SELECT id FROM webhook_deliveries WHERE id = ANY ($1::uuid[]) AND status = 'pending' AND parked_at IS NOT NULL`,
      [deliveryIds],
    );
    return new Set(rows.map((row) => row.id));
  }
}
