import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { PeriodicTask, runtimeConfig, SystemDb, type RuntimeConfig } from '@app/core';
import { DeliveryQueue } from './delivery-queue.js';
import { EndpointGate } from './endpoint-gate.js';
import { LostDeliveryRepository } from './lost-delivery.repository.js';

/** How many lost deliveries one sweep re-enqueues. */
const LOST_BATCH = 500;

/** How many of a webhook's parked deliveries one sweep checks against the gate. */
const PARKED_CHECK_LIMIT = 1000;

/**
 * Finds the deliveries whose job was lost (Redis flushed, a crash) and enqueues them again, every
 * JOB_SWEEP_INTERVAL_MS in the worker processes. A pending delivery not parked in the gate is lost when
 * its attempt is LOST_JOB_AFTER_MS overdue. Parked deliveries are the gate's: for each webhook with some,
 * the sweep hands over what is free (a lease a dead worker left, a cool-down over) and, when PostgreSQL
 * holds more deliveries parked LOST_JOB_AFTER_MS ago than the gate knows of, enqueues the ones it lost.
 */
@Injectable()
export class LostDeliverySweep implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(LostDeliverySweep.name);
  private readonly task = new PeriodicTask(
    'lost delivery job sweep',
    async () => ({ requeued: await this.requeueLost() }),
    this.logger,
  );

  constructor(
    private readonly queue: DeliveryQueue,
    private readonly gate: EndpointGate,
    private readonly deliveries: LostDeliveryRepository,
    private readonly system: SystemDb,
    @Inject(runtimeConfig.KEY) private readonly runtime: RuntimeConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.runtime.APP_ROLE === 'api') return;
    this.task.start(this.runtime.JOB_SWEEP_INTERVAL_MS);
  }

  /** Before the connections close: a sweep under way ends first. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.task.stop();
  }

  /**
   * One sweep; returns how many deliveries it enqueued. Each lost delivery is claimed by moving its
   * `next_attempt_at` to now (rows another worker's sweep holds are skipped), so however many workers
   * sweep, one re-enqueues it, once per LOST_JOB_AFTER_MS while it stays pending.
   */
  async requeueLost(): Promise<number> {
    const lostAfterMs = this.runtime.LOST_JOB_AFTER_MS;
    // What the gate holds parked is marked so first (in bulk, here rather than at each parking), so the
    // lost-job claim below leaves it to the gate.
    const parkedInGate = await this.gate.parked();
    if (parkedInGate.length > 0) await this.system.run(() => this.deliveries.park(parkedInGate));
    const due = await this.system.run(() => this.deliveries.claimLost(lostAfterMs, LOST_BATCH));
    await Promise.all(due.map((delivery) => this.queue.enqueue(delivery.id, delivery.attempt_count + 1)));
    let lost = 0;
    for (const { webhook_id: webhookId, parked } of await this.system.run(() =>
      this.deliveries.parkedCounts(lostAfterMs),
    )) {
      const gate = await this.gate.wake(webhookId);
      await this.queue.enqueueHanded(gate.handed);
      if (parked <= gate.parked + gate.inFlight) continue;
      const rows = await this.system.run(() => this.deliveries.parkedOf(webhookId, lostAfterMs, PARKED_CHECK_LIMIT));
      const attempts = rows.map((row) => ({ deliveryId: row.id, attempt: row.attempt }));
      const known = await this.gate.known(webhookId, attempts);
      const unknown = attempts.filter((_, index) => !known[index]);
      // A delivery handed a slot since the first read has left the parked (its job unparks it first).
      const stillParked =
        unknown.length > 0
          ? await this.system.run(() => this.deliveries.stillParked(unknown.map((a) => a.deliveryId)))
          : new Set();
      const missing = unknown.filter((a) => stillParked.has(a.deliveryId));
      await this.queue.enqueueLostParked(missing);
      lost += missing.length;
    }
    return due.length + lost;
  }
}
