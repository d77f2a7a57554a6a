import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { Transactional } from '@nestjs-cls/transactional';
import { ClsService } from 'nestjs-cls';
import { DeliveryQueue } from '../../deliveries/delivery-queue.js';
import { DeliveryRepository } from '../../deliveries/delivery.repository.js';
import { DispatchWebhookCommand } from './dispatch-webhook.command.js';

/**
 * Writes the deliveries (idempotent: unique per event × webhook) and enqueues their first attempt.
 * A republished event finds its deliveries already written and enqueues nothing new; a crash between
 * the two steps is repaired by the delivery sweep, which re-enqueues due pending deliveries.
 */
@CommandHandler(DispatchWebhookCommand)
export class DispatchWebhookHandler implements ICommandHandler<DispatchWebhookCommand> {
  constructor(
    private readonly deliveries: DeliveryRepository,
    private readonly queue: DeliveryQueue,
    private readonly cls: ClsService,
  ) {}

  execute({ envelope }: DispatchWebhookCommand): Promise<number> {
    return this.cls.run(async () => {
      const ids = await this.write(envelope.store_id, envelope.id, envelope.event, JSON.stringify(envelope));
      await Promise.all(ids.map((id) => this.queue.enqueue(id)));
      return ids.length;
    });
  }

  @Transactional()
  private write(storeId: string, eventId: string, event: string, body: string): Promise<string[]> {
    return this.deliveries.createForEvent(storeId, eventId, event, body);
  }
}
