import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import type { Job } from 'bull';
import { jobDrainMs, MetricsService, QueueWorker, runtimeConfig, SystemDb, type RuntimeConfig } from '@app/core';
import { webhooksConfig, type WebhooksConfig } from '../webhooks.config.js';
import { DeliveryAttempt } from './delivery-attempt.js';
import { DeliveryQueue, type DeliveryJob } from './delivery-queue.js';
import { DeliveryRepository, type AttemptOutcome } from './delivery.repository.js';
import {
  EndpointGate,
  FRESH_GRANT_MS,
  type AttemptResult,
  type ClaimResult,
  type GateAttempt,
} from './endpoint-gate.js';

/** How many parked attempts one job runs on the slot it frees before handing the rest on through the queue. */
const CHAIN_LIMIT = 50;

/** A parked attempt a release gave a slot to, at `grantedAt`. */
type HandedAttempt = GateAttempt & { grantedAt: number };

/**
 * Runs delivery jobs (worker processes): takes a slot of the webhook's in the gate (or parks the attempt
 * there), has DeliveryAttempt send and record the attempt, gives the slot back (handing it to the next
 * parked attempt), and enqueues the next attempt when the retry policy (retry-policy.ts) asks for one.
 * A parked attempt records nothing: an attempt counts only when its request is sent. Lost jobs are
 * LostDeliverySweep's.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, OnModuleDestroy, BeforeApplicationShutdown {
  private readonly logger = new Logger(DeliveryWorker.name);
  private readonly wakes = new Set<NodeJS.Timeout>();
  private readonly jobs: QueueWorker<DeliveryJob>;

  constructor(
    private readonly queue: DeliveryQueue,
    private readonly gate: EndpointGate,
    private readonly attempts: DeliveryAttempt,
    private readonly deliveries: DeliveryRepository,
    private readonly system: SystemDb,
    private readonly metrics: MetricsService,
    @Inject(webhooksConfig.KEY) private readonly config: WebhooksConfig,
    @Inject(runtimeConfig.KEY) private readonly runtime: RuntimeConfig,
  ) {
    this.jobs = new QueueWorker(queue.queue, this.logger);
  }

  onApplicationBootstrap(): void {
    if (this.runtime.APP_ROLE === 'api') return;
    this.jobs.start(this.config.WEBHOOK_WORKER_CONCURRENCY, (job: Job<DeliveryJob>) =>
      // A job never fails silently: the delivery stays pending and LostDeliverySweep retries it.
      this.run(job).catch((error: Error) =>
        this.logger.error({ err: { message: error.message }, job: job.id }, 'delivery attempt could not be recorded'),
      ),
    );
  }

  /** First step of a shutdown: no new attempt; the running ones get to finish (or are handed back to the queue). */
  onModuleDestroy(): void {
    void this.jobs.stop(jobDrainMs(this.runtime.SHUTDOWN_TIMEOUT_MS));
  }

  /** Before the connections close: the probe timers and the running attempts are done. */
  async beforeApplicationShutdown(): Promise<void> {
    for (const timer of this.wakes) clearTimeout(timer);
    this.wakes.clear();
    await this.jobs.stop(jobDrainMs(this.runtime.SHUTDOWN_TIMEOUT_MS));
  }

  private run(job: Job<DeliveryJob>): Promise<void> {
    const dueAt = job.timestamp + (job.opts.delay ?? 0);
    const { deliveryId, attempt, handed, grantedAt } = job.data;
    return this.attempt(deliveryId, attempt, { dueAt, handed: handed === true, grantedAt });
  }

  /**
   * One attempt of one delivery, then, on the slot it frees, the parked attempts of the same webhook
   * the gate hands back, one after another (up to CHAIN_LIMIT, and not once the worker stops): a
   * backlog drains without a Bull job per delivery. Whatever is left goes on through the queue.
   */
  async attempt(
    deliveryId: string,
    attempt: number,
    options: { dueAt?: number; handed?: boolean; grantedAt?: number } = {},
  ): Promise<void> {
    let next = await this.attemptOne(deliveryId, attempt, options);
    for (let chained = 0; next && chained < CHAIN_LIMIT && !this.jobs.stopped; chained++) {
      this.metrics.webhookHandOvers.inc({ via: 'job' });
      next = await this.attemptOne(next.deliveryId, next.attempt, { handed: true, grantedAt: next.grantedAt });
    }
    if (next) await this.handOnThroughQueue([next]);
  }

  /** Parked attempts given a slot that this job will not run: each gets a queued job of its own. */
  private async handOnThroughQueue(attempts: HandedAttempt[]): Promise<void> {
    if (attempts.length === 0) return;
    await this.queue.enqueueHanded(attempts, attempts[0].grantedAt);
    this.metrics.webhookHandOvers.inc({ via: 'queue' }, attempts.length);
  }

  /**
   * One attempt of one delivery; a repeated or stale job (attempt already made, delivery no longer
   * pending) does nothing. `handed`: the gate gave this attempt a slot at `grantedAt` (at dispatch, or
   * a release handed it over); `dueAt` orders it among the parked should it be parked (again).
   * Returns the parked attempt the freed slot went to, for the caller to run next (the others the
   * release handed a slot are enqueued).
   */
  private async attemptOne(
    deliveryId: string,
    attempt: number,
    options: { dueAt?: number; handed?: boolean; grantedAt?: number },
  ): Promise<HandedAttempt | undefined> {
    const handed = options.handed ?? false;
    const target = await this.system.run(() => this.deliveries.findTarget(deliveryId, handed));
    if (!target) return;
    const slot: GateAttempt = { deliveryId, attempt };
    if (target.status !== 'pending' || target.attempt_count >= attempt || target.webhook_status !== 'active') {
      if (target.status === 'pending' && target.webhook_status !== 'active')
        await this.system.run(() => this.deliveries.cancelPending(target.webhook_id));
      // A slot handed to a delivery that no longer needs it goes on to the next parked one.
      return handed ? this.passOn(await this.release(target.webhook_id, slot, 'not-sent')) : undefined;
    }
    // A slot granted moments ago is still this attempt's (its lease outlasts the request); otherwise ask.
    const fresh = handed && options.grantedAt !== undefined && Date.now() - options.grantedAt < FRESH_GRANT_MS;
    const claim: ClaimResult = fresh
      ? { granted: true, probe: false }
      : await this.gate.claim(target.webhook_id, slot, options.dueAt ?? Date.now(), handed);
    if (!claim.granted) {
      // Parked in the gate (or another job holds this very attempt): no worker waits for the webhook.
      if (claim.reason !== 'duplicate') this.metrics.webhookParked.inc({ reason: claim.reason });
      return undefined;
    }
    // A parked delivery given a slot without a hand-over (the sweep enqueued it) is parked no longer.
    if (!handed && target.parked_at !== null) await this.system.run(() => this.deliveries.unpark(deliveryId));
    // The slot is held for the request only: the next parked attempt goes while this one is recorded.
    let result: AttemptResult = 'not-sent';
    let outcome: AttemptOutcome;
    let freed: HandedAttempt[] = [];
    try {
      outcome = await this.attempts.send(target, attempt);
      result = outcome.deliveryStatus === 'succeeded' ? 'succeeded' : 'failed';
    } finally {
      freed = await this.release(target.webhook_id, slot, result);
      // Should the request have thrown, nothing runs after this: the next attempts go through the queue.
      if (result === 'not-sent') await this.handOnThroughQueue(freed.splice(0));
    }
    this.metrics.webhookAttempts.inc({ outcome: result === 'succeeded' ? 'succeeded' : 'failed' });
    try {
      await this.attempts.record(target, outcome);
      if (outcome.deliveryStatus === 'pending')
        await this.queue.enqueue(deliveryId, attempt + 1, outcome.nextAttemptAt!.getTime() - Date.now());
    } catch (error) {
      await this.handOnThroughQueue(freed);
      throw error;
    }
    return this.passOn(freed);
  }

  /** Keeps the first of the attempts a release handed a slot (the caller runs it next); enqueues the others. */
  private async passOn(freed: HandedAttempt[]): Promise<HandedAttempt | undefined> {
    const [next, ...others] = freed;
    await this.handOnThroughQueue(others);
    return next;
  }

  /**
   * Gives the slot back and schedules the wake of a circuit it opened; returns the parked attempts it was handed to.
   */
  private async release(webhookId: string, slot: GateAttempt, result: AttemptResult): Promise<HandedAttempt[]> {
    const { openedUntil, handed } = await this.gate.release(webhookId, slot, result);
    const grantedAt = Date.now();
    if (openedUntil !== null) {
      this.metrics.webhookCircuitOpened.inc();
      this.logger.warn(
        { webhook_id: webhookId, until: new Date(openedUntil).toISOString() },
        'webhook circuit open: its deliveries wait for the cool-down',
      );
      this.scheduleWake(webhookId, openedUntil);
    }
    return handed.map((next) => ({ ...next, grantedAt }));
  }

  /**
   * When the cool-down is over, hands the probe to the oldest parked attempt. The timer is only a
   * trigger (the state is the gate's): should this process die first, the sweep wakes the webhook.
   */
  private scheduleWake(webhookId: string, at: number): void {
    const timer = setTimeout(
      () => {
        this.wakes.delete(timer);
        this.wake(webhookId).catch((error: Error) =>
          this.logger.warn(
            { err: { message: error.message }, webhook_id: webhookId },
            'webhook circuit wake failed; the sweep will wake it',
          ),
        );
      },
      Math.max(0, at - Date.now()) + 5,
    );
    timer.unref();
    this.wakes.add(timer);
  }

  /** Hands what is free of a webhook's (its circuit's probe, once the cool-down is over) to its parked attempts. */
  private async wake(webhookId: string): Promise<void> {
    const { handed } = await this.gate.wake(webhookId);
    await this.queue.enqueueHanded(handed);
  }
}
