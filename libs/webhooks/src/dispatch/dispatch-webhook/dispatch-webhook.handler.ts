import { DbScopes } from '@app/core';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DeliveryQueue } from '../../deliveries/delivery-queue.js';
import { DeliveryRepository } from '../../deliveries/delivery.repository.js';
import { DispatchWebhookCommand } from './dispatch-webhook.command.js';

/**
 * Writes the deliveries of a batch of events in one statement (idempotent: unique per event ×
 * webhook) and enqueues their first attempts in one Redis round trip. A republished event finds its
 * deliveries already written and enqueues nothing new; a crash between the two steps is repaired by
 * the delivery sweep, which re-enqueues due pending deliveries.
 */
@CommandHandler(DispatchWebhookCommand)
export class DispatchWebhookHandler implements ICommandHandler<DispatchWebhookCommand> {
  constructor(
    private readonly deliveries: DeliveryRepository,
    private readonly queue: DeliveryQueue,
    private readonly scopes: DbScopes,
  ) {}

  execute({ envelopes }: DispatchWebhookCommand): Promise<number> {
    return this.scopes.asSystem(async () => {
      const ids = await this.deliveries.createForEvents(envelopes.map((envelope) => ({ ...envelope, body: JSON.stringify(envelope) })));
      await this.queue.enqueueFirstAttempts(ids);
      return ids.length;
    });
  }
}
