import { Inject, Injectable } from '@nestjs/common';
import { runtimeConfig, type RuntimeConfig } from '../config/runtime.config.js';
import { SystemDb } from '../tenancy/db-handles.js';
import { RetentionSweep } from '../scheduling/retention-sweep.js';
import { outboxConfig, type OutboxConfig } from './outbox.config.js';

/**
 * Deletes outbox events dispatched more than OUTBOX_RETENTION_DAYS ago (index
 * outbox_events_dispatched_idx). An event is never deleted, however old, while the relay still owes
 * it to the event bus: undispatched, or still owed an acknowledgement (named by a row of
 * `outbox_owed_acks`, a table that holds the publications in flight, so reading it whole is cheap).
 * Webhook deliveries keep their own copy of the envelope; the window (at least 30 days) is what the
 * store events listing (`GET /functions/v1/stores/{store_id}/events`) serves for reconciliation.
 */
@Injectable()
export class OutboxRetention extends RetentionSweep {
  constructor(
    system: SystemDb,
    @Inject(runtimeConfig.KEY) runtime: RuntimeConfig,
    @Inject(outboxConfig.KEY) outbox: OutboxConfig,
  ) {
    const deleteBatch = `
      WITH gone AS (
        DELETE FROM outbox_events WHERE id IN (
          SELECT id FROM outbox_events
           WHERE dispatched_at < now() - make_interval(days => $1)
             AND id NOT IN (SELECT owed.id FROM outbox_owed_acks, unnest(event_ids) AS owed(id)
               WHERE owed.id IS NOT NULL)
           LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING id
      )
      SELECT 1 FROM gone`;
    super({ name: 'outbox retention', days: () => outbox.OUTBOX_RETENTION_DAYS, deleteBatch }, system, runtime);
  }
}
