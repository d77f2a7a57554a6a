import { Injectable, Logger } from '@nestjs/common';
import { RequestTransaction } from '@app/core';
import { DeliveryQueue } from '../deliveries/delivery-queue.js';
import { EndpointGate } from '../deliveries/endpoint-gate.js';

/**
 * Enqueues the first attempt of deliveries a request creates (test event, redeliver, recover), once
 * the request's transaction has committed (so the worker finds them; nothing is enqueued for a
 * request that rolled back). When Redis refuses the job the delivery stays `pending` in PostgreSQL
 * and the worker's lost-job sweep enqueues it again, so a delivery the request committed is
 * attempted; the request itself does not fail because the queue did.
 */
@Injectable()
export class DeliveryStarter {
  private readonly logger = new Logger(DeliveryStarter.name);

  constructor(
    private readonly queue: DeliveryQueue,
    private readonly gate: EndpointGate,
  ) {}

  start(deliveryIds: string[]): Promise<void> {
    return RequestTransaction.afterCommit(() => this.enqueue(deliveryIds));
  }

  /**
   * Once the request's transaction has committed, closes the webhook's circuit in the delivery gate (it
   * was re-enabled), so its next delivery is sent at once instead of after the circuit's cool-down, as
   * soon as a slot is free: attempts still in flight keep theirs. Should Redis fail, the request still
   * succeeds: the circuit then half-opens when its cool-down ends, as it would have.
   */
  resetGate(webhookId: string): Promise<void> {
    return RequestTransaction.afterCommit(async () => {
      try {
        await this.queue.enqueueHanded(await this.gate.reset(webhookId));
      } catch (error) {
        const message = 'could not reset the gate of a re-enabled webhook; its cool-down applies';
        this.logger.error({ webhook_id: webhookId, err: error }, message);
      }
    });
  }

  private async enqueue(deliveryIds: string[]): Promise<void> {
    const results = await Promise.allSettled(deliveryIds.map((id) => this.queue.enqueue(id, 1)));
    results.forEach((result, index) => {
      if (result.status === 'rejected') {
        this.logger.error(
          { delivery_id: deliveryIds[index], err: result.reason },
          'could not enqueue a delivery; the lost-job sweep will enqueue it',
        );
      }
    });
  }
}
