import { Inject, Injectable } from '@nestjs/common';
import { RetentionSweep, type RuntimeConfig, runtimeConfig, SystemDb } from '@app/core';
import { webhooksConfig, type WebhooksConfig } from '../webhooks.config.js';

/**
 * Deletes finished deliveries (succeeded, failed, cancelled, skipped) whose last change is more than
 * DELIVERY_RETENTION_DAYS old, with their attempts (ON DELETE CASCADE): the unit the delivery log
 * shows, so the log never lists a delivery without the attempts it made. A pending delivery is never
 * deleted, however old. A delivery that has a redelivery waits until that redelivery is gone (a later
 * batch of the same sweep, once it is old enough too): deleting it first would set its redeliveries'
 * `redelivery_of` to null, and two of them would then collide as first deliveries of the event.
 */
@Injectable()
export class DeliveryRetention extends RetentionSweep {
  constructor(
    system: SystemDb,
    @Inject(runtimeConfig.KEY) runtime: RuntimeConfig,
    @Inject(webhooksConfig.KEY) webhooks: WebhooksConfig,
  ) {
    const deleteBatch = `
      DELETE FROM webhook_deliveries WHERE id IN (
        SELECT d.id FROM webhook_deliveries d
         WHERE d.status <> 'pending' AND d.updated_at < now() - make_interval(days => $1)
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries r WHERE r.redelivery_of = d.id)
         LIMIT $2 FOR UPDATE OF d SKIP LOCKED)
      RETURNING 1`;
    super({ name: 'delivery retention', days: () => webhooks.DELIVERY_RETENTION_DAYS, deleteBatch }, system, runtime);
  }
}
