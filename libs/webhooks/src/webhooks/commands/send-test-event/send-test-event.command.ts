import { Command } from '@nestjs/cqrs';
import type { DeliveryView } from '../../../deliveries/delivery.js';

export class SendTestEventCommand extends Command<DeliveryView> {
  constructor(readonly webhookId: string) {
    super();
  }
}
