import { Injectable, Logger } from '@nestjs/common';
import { DeliveryQueue } from '../deliveries/delivery-queue.js';
import { RequestTransaction } from '@app/core';

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

  constructor(private readonly queue: DeliveryQueue) {}

  start(deliveryIds: string[]): Promise<void> {
    return RequestTransaction.afterCommit(() => this.enqueue(deliveryIds));
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
