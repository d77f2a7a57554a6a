import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import type { JobOptions, Queue } from 'bull';
import type { GateAttempt } from './endpoint-gate.js';

export const DELIVERY_QUEUE = 'webhook-deliveries';

/** One attempt of one delivery; `handed`: the gate gave it a slot of its webhook's, at `grantedAt`. */
export interface DeliveryJob {
  deliveryId: string;
  attempt: number;
  handed?: boolean;
  grantedAt?: number;
}

/**
 * Schedules delivery attempts on Bull; one job per attempt (jobId `<delivery>:<attempt>`), so a repeat
 * enqueue of a waiting job is a no-op. Finished jobs are removed, so the lost-job sweep can enqueue again.
 */
@Injectable()
export class DeliveryQueue {
  constructor(@InjectQueue(DELIVERY_QUEUE) readonly queue: Queue<DeliveryJob>) {}

  async enqueue(deliveryId: string, attempt = 1, delayMs = 0): Promise<void> {
    await this.queue.add({ deliveryId, attempt }, jobOptions(`${deliveryId}:${attempt}`, delayMs));
  }

  /**
   * Attempts the gate gave a slot to, in one round trip: new deliveries at dispatch, and parked ones a
   * release handed a slot. Their ids are new (the job that parked one may not be gone from Bull yet);
   * the gate gives each slot once.
   */
  async enqueueHanded(attempts: GateAttempt[], at = Date.now()): Promise<void> {
    if (attempts.length === 0) return;
    await this.queue.addBulk(
      attempts.map(({ deliveryId, attempt }) => ({
        data: { deliveryId, attempt, handed: true, grantedAt: at },
        opts: jobOptions(`${deliveryId}:${attempt}:handed:${at}`, 0),
      })),
    );
  }

  /** Parked attempts the gate lost (Redis flushed): enqueued once each until their job has run. */
  async enqueueLostParked(attempts: GateAttempt[]): Promise<void> {
    if (attempts.length === 0) return;
    await this.queue.addBulk(
      attempts.map(({ deliveryId, attempt }) => ({
        data: { deliveryId, attempt },
        opts: jobOptions(`${deliveryId}:${attempt}:lost`, 0),
      })),
    );
  }
}

function jobOptions(jobId: string, delayMs: number): JobOptions {
  return { jobId, delay: delayMs, attempts: 1, removeOnComplete: true, removeOnFail: true };
}
