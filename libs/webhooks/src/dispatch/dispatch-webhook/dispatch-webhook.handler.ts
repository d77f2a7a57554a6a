import { StoreEventSubscribers } from '@app/core';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DeliveryQueue } from '../../deliveries/delivery-queue.js';
import { DeliveryRepository } from '../../deliveries/delivery.repository.js';
import { EndpointGate } from '../../deliveries/endpoint-gate.js';
import { WEBHOOK_DISPATCH } from '../webhook-dispatch.saga.js';
import { DispatchWebhookCommand } from './dispatch-webhook.command.js';

/**
 * Writes the deliveries of a batch of events and acknowledges their publications for the webhook
 * dispatch, in one statement (idempotent: an event whose publication was acknowledged before writes
 * nothing, and deliveries are unique per event × webhook besides). A disabled webhook's deliveries
 * are written `skipped` by that statement and go no further. For the pending ones it then asks the
 * delivery gate, once per webhook, which first attempts may go now (the others are parked there; the
 * sweep marks them in PostgreSQL), and enqueues those in one Redis round trip. A failure before the
 * statement commits leaves the events unacknowledged: the relay publishes them again. A crash after
 * it is repaired by the delivery sweep (due pending deliveries, parked ones the gate lost).
 */
@CommandHandler(DispatchWebhookCommand)
export class DispatchWebhookHandler implements ICommandHandler<DispatchWebhookCommand> {
  constructor(
    private readonly deliveries: DeliveryRepository,
    private readonly gate: EndpointGate,
    private readonly queue: DeliveryQueue,
    private readonly subscribers: StoreEventSubscribers,
  ) {}

  execute({ envelopes, publications }: DispatchWebhookCommand): Promise<number> {
    return this.subscribers.handle(async () => {
      const created = await this.deliveries.createForEvents(
        WEBHOOK_DISPATCH.name,
        publications,
        envelopes.map((envelope) => ({ ...envelope, body: JSON.stringify(envelope) })),
      );
      const byWebhook = new Map<string, string[]>();
      for (const { id, webhook_id: webhookId } of created) {
        const ids = byWebhook.get(webhookId);
        if (ids) ids.push(id);
        else byWebhook.set(webhookId, [id]);
      }
      const dueAt = Date.now();
      const granted = (
        await Promise.all([...byWebhook].map(([webhookId, ids]) => this.gate.claimNew(webhookId, ids, dueAt)))
      ).flat();
      await this.queue.enqueueHanded(granted.map((deliveryId) => ({ deliveryId, attempt: 1 })));
      return created.length;
    });
  }
}
