import { Injectable, Logger } from '@nestjs/common';
import { DeliveryQueue } from '../deliveries/delivery-queue.js';
import { FIRST_ATTEMPT_DELAY_MS } from './webhook-api.constants.js';

/**
 * Enqueues the first attempt of deliveries a request creates (test event, redeliver, recover).
 *
 * The request's transaction has not committed yet when this runs; the attempt is delayed by
 * FIRST_ATTEMPT_DELAY_MS so the worker finds the delivery, and a worker that still runs first sees
 * no delivery and does nothing. Either way (and when Redis refuses the job) the delivery stays
 * `pending` in PostgreSQL, and the worker's lost-job sweep enqueues it again, so a delivery the
 * request committed is attempted; the request itself does not fail because the queue did.
 */
@Injectable()
export class DeliveryStarter {
  private readonly logger = new Logger(DeliveryStarter.name);

  constructor(private readonly queue: DeliveryQueue) {}

  async start(deliveryIds: string[]): Promise<void> {
    const results = await Promise.allSettled(deliveryIds.map((id) => this.queue.enqueue(id, 1, FIRST_ATTEMPT_DELAY_MS)));
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
