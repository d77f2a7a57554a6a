import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ApiError } from '@app/core';
import { DeliveryRepository } from '../../../deliveries/delivery.repository.js';
import { toDeliveryView } from '../../../deliveries/delivery.js';
import { DeliveryStarter } from '../../delivery-starter.js';
import { RECOVER_MAX_AGE_DAYS, RECOVER_MAX_AGE_MS, RECOVER_MAX_DELIVERIES } from '../../webhook-api.constants.js';
import { WebhookRepository } from '../../webhook.repository.js';
import { lockActiveWebhook } from '../active-webhook.js';
import { RecoverDeliveriesCommand, type RecoveredDeliveries } from './recover-deliveries.command.js';

/**
 * Re-sends every event whose latest delivery to the webhook since `since` failed, was cancelled or
 * was skipped (typically after re-enabling a disabled webhook), oldest first, at most
 * RECOVER_MAX_DELIVERIES per call. A disabled webhook is refused (409): nothing can be sent to it.
 * Events already redelivered (their latest delivery is pending or succeeded) are not sent
 * again, so repeating the call is safe. The webhook row is locked, so two calls do not both send.
 */
@CommandHandler(RecoverDeliveriesCommand)
export class RecoverDeliveriesHandler implements ICommandHandler<RecoverDeliveriesCommand> {
  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly deliveries: DeliveryRepository,
    private readonly starter: DeliveryStarter,
  ) {}

  async execute({ webhookId, since }: RecoverDeliveriesCommand): Promise<RecoveredDeliveries> {
    const now = Date.now();
    if (since.getTime() > now)
      throw ApiError.validation([{ field: 'since', message: 'since must not be in the future' }]);
    if (since.getTime() < now - RECOVER_MAX_AGE_MS) {
      throw ApiError.validation([
        { field: 'since', message: `since must be at most ${RECOVER_MAX_AGE_DAYS} days ago` },
      ]);
    }
    await lockActiveWebhook(this.webhooks, webhookId);
    const created = await this.deliveries.redeliverFailedSince(webhookId, since, RECOVER_MAX_DELIVERIES);
    const hasMore =
      created.length === RECOVER_MAX_DELIVERIES && (await this.deliveries.anyFailedSince(webhookId, since));
    await this.starter.start(created.map((delivery) => delivery.id));
    return {
      redelivered: created.length,
      deliveries: created.map((delivery) => toDeliveryView(delivery, [])),
      has_more: hasMore,
    };
  }
}
