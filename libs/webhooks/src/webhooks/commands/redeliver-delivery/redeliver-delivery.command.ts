import { Command } from '@nestjs/cqrs';
import type { DeliveryView } from '../../../deliveries/delivery.js';

export class RedeliverDeliveryCommand extends Command<DeliveryView> {
  constructor(
    readonly webhookId: string,
    readonly deliveryId: string,
  ) {
    super();
  }
}
