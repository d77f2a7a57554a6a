import { Command } from '@nestjs/cqrs';
import type { DeliveryView } from '../../../deliveries/delivery.js';

export interface RecoveredDeliveries {
  redelivered: number;
  deliveries: DeliveryView[];
  /** More events qualified than one call redelivers (RECOVER_MAX_DELIVERIES): call again with the same `since`. */
  has_more: boolean;
}

export class RecoverDeliveriesCommand extends Command<RecoveredDeliveries> {
  constructor(
    readonly webhookId: string,
    readonly since: Date,
  ) {
    super();
  }
}
