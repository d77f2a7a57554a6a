import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ApiError } from '@app/core';
import { DeliveryRepository } from '../../../deliveries/delivery.repository.js';
import { toDeliveryView, type DeliveryView } from '../../../deliveries/delivery.js';
import { DeliveryStarter } from '../../delivery-starter.js';
import { WebhookRepository } from '../../webhook.repository.js';
import { lockActiveWebhook } from '../active-webhook.js';
import { RedeliverDeliveryCommand } from './redeliver-delivery.command.js';

/**
 * A new delivery of the same event: same envelope (`event_id`, the exact `body` bytes), so the
 * receiver can de-duplicate on the envelope id; its own attempts, starting at 1; `redelivery_of`
 * the delivery asked for. Any delivery of the webhook can be redelivered, whatever its state.
 */
@CommandHandler(RedeliverDeliveryCommand)
export class RedeliverDeliveryHandler implements ICommandHandler<RedeliverDeliveryCommand> {
  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly deliveries: DeliveryRepository,
    private readonly starter: DeliveryStarter,
  ) {}

  async execute({ webhookId, deliveryId }: RedeliverDeliveryCommand): Promise<DeliveryView> {
    const original = await this.deliveries.findOfWebhook(webhookId, deliveryId);
    if (!original) throw ApiError.notFound('Delivery');
    const webhook = await lockActiveWebhook(this.webhooks, webhookId);
    const delivery = await this.deliveries.createOne(
      webhook.id,
      webhook.store_id,
      original.event_id,
      original.event,
      original.body,
      original.id,
    );
    await this.starter.start([delivery.id]);
    return toDeliveryView(delivery, []);
  }
}
