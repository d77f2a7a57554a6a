import { randomUUID } from 'node:crypto';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DeliveryRepository } from '../../../deliveries/delivery.repository.js';
import { toDeliveryView, type DeliveryView } from '../../../deliveries/delivery.js';
import { DeliveryStarter } from '../../delivery-starter.js';
import { TEST_EVENT_KIND, TEST_EVENT_MESSAGE } from '../../webhook-api.constants.js';
import { WebhookRepository } from '../../webhook.repository.js';
import { lockActiveWebhook } from '../active-webhook.js';
import { SendTestEventCommand } from './send-test-event.command.js';

/**
 * A delivery of a `webhook.test` event (whatever the webhook subscribes to), signed and retried like
 * any other: the envelope `{id, event, created_at, store_id, data: {webhook_id, message}}` with a
 * new id, serialised once as the delivery body.
 */
@CommandHandler(SendTestEventCommand)
export class SendTestEventHandler implements ICommandHandler<SendTestEventCommand> {
  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly deliveries: DeliveryRepository,
    private readonly starter: DeliveryStarter,
  ) {}

  async execute({ webhookId }: SendTestEventCommand): Promise<DeliveryView> {
    const webhook = await lockActiveWebhook(this.webhooks, webhookId);
    const envelope = {
      id: randomUUID(),
      event: TEST_EVENT_KIND,
      created_at: new Date().toISOString(),
      store_id: webhook.store_id,
      data: { webhook_id: webhook.id, message: TEST_EVENT_MESSAGE },
    };
    const delivery = await this.deliveries.createOne(
      webhook.id,
      webhook.store_id,
      envelope.id,
      envelope.event,
      JSON.stringify(envelope),
      null,
    );
    await this.starter.start([delivery.id]);
    return toDeliveryView(delivery, []);
  }
}
