import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bull';

export const DELIVERY_QUEUE = 'webhook-deliveries';

export interface DeliveryJob {
  deliveryId: string;
  attempt: number;
}

/**
 * Schedules delivery attempts on Bull; one job per attempt (jobId `<delivery>:<attempt>`), so a repeat
 * enqueue of a waiting job is a no-op. Finished jobs are removed, so the lost-job sweep can enqueue again.
 */
@Injectable()
export class DeliveryQueue {
  constructor(@InjectQueue(DELIVERY_QUEUE) readonly queue: Queue<DeliveryJob>) {}

  async enqueue(deliveryId: string, attempt = 1, delayMs = 0): Promise<void> {
    await this.queue.add({ deliveryId, attempt }, jobOptions(deliveryId, attempt, delayMs));
  }

  /** The first attempts of new deliveries, due now, in one round trip to Redis. */
  async enqueueFirstAttempts(deliveryIds: string[]): Promise<void> {
    if (deliveryIds.length === 0) return;
    await this.queue.addBulk(deliveryIds.map((deliveryId) => ({ data: { deliveryId, attempt: 1 }, opts: jobOptions(deliveryId, 1, 0) })));
  }
}

function jobOptions(deliveryId: string, attempt: number, delayMs: number) {
  return { jobId: `${deliveryId}:${attempt}`, delay: delayMs, attempts: 1, removeOnComplete: true, removeOnFail: true };
}
