import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import type { Job } from 'bull';
import {
  HttpTimeoutError,
  jobDrainMs,
  MetricsService,
  PeriodicTask,
  queryRows,
  QueueWorker,
  SafeHttpClient,
  runtimeConfig,
  SecretBox,
  SystemDb,
  type RuntimeConfig,
} from '@app/core';
import { NotificationRepository } from '@app/notifications';
import { webhooksConfig, type WebhooksConfig } from '../webhooks.config.js';
import { MAX_DELIVERY_ATTEMPTS } from '../webhooks/webhook.js';
import { WebhookRepository } from '../webhooks/webhook.repository.js';
import { deliveryHeaders } from '../signing/webhook-signature.js';
import { DeliveryQueue, type DeliveryJob } from './delivery-queue.js';
import { DeliveryRepository, type AttemptOutcome, type DeliveryTarget } from './delivery.repository.js';
import { EndpointGate, FRESH_GRANT_MS, type AttemptResult, type ClaimResult, type GateAttempt } from './endpoint-gate.js';

/** How many parked attempts one job runs on the slot it frees before handing the rest on through the queue. */
const CHAIN_LIMIT = 50;

/** A parked attempt a release gave a slot to, at `grantedAt`. */
type HandedAttempt = GateAttempt & { grantedAt: number };

/** How much of a receiver's answer is kept in the delivery log. */
const RESPONSE_EXCERPT_BYTES = 2048;

/** How many of a webhook's parked deliveries one sweep checks against the gate. */
const PARKED_CHECK_LIMIT = 1000;

/**
 * Runs delivery attempts (worker processes): takes a slot of the webhook's in the gate (or parks the
 * attempt there), signs and POSTs the envelope, records the attempt, gives the slot back (handing it
 * to the next parked attempt), and schedules the next attempt on WEBHOOK_RETRY_DELAYS_MS, or, after
 * the 5th failure or a 410 Gone, disables the webhook, stops its pending deliveries and notifies the
 * merchant. A parked attempt records nothing: an attempt counts only when its request is sent.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, OnModuleDestroy, BeforeApplicationShutdown {
  private readonly logger = new Logger(DeliveryWorker.name);
  private readonly wakes = new Set<NodeJS.Timeout>();
  private readonly lostJobSweep = new PeriodicTask(
    'lost delivery job sweep',
    async () => ({ requeued: await this.requeueLost() }),
    this.logger,
  );
  private readonly jobs: QueueWorker<DeliveryJob>;

  constructor(
    private readonly queue: DeliveryQueue,
    private readonly gate: EndpointGate,
    private readonly deliveries: DeliveryRepository,
    private readonly webhooks: WebhookRepository,
    private readonly notifications: NotificationRepository,
    private readonly http: SafeHttpClient,
    private readonly secrets: SecretBox,
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
      // A job never fails silently: the delivery stays pending and the lost-job sweep retries it.
      this.run(job).catch((error: Error) =>
        this.logger.error({ err: { message: error.message }, job: job.id }, 'delivery attempt could not be recorded'),
      ),
    );
    this.lostJobSweep.start(this.runtime.JOB_SWEEP_INTERVAL_MS);
  }

  /** First step of a shutdown: no new attempt; the running ones get to finish (or are handed back to the queue). */
  onModuleDestroy(): void {
    void this.jobs.stop(jobDrainMs(this.runtime.SHUTDOWN_TIMEOUT_MS));
  }

  /** Before the connections close: the sweep, the probe timers and the running attempts are done. */
  async beforeApplicationShutdown(): Promise<void> {
    for (const timer of this.wakes) clearTimeout(timer);
    this.wakes.clear();
    await this.lostJobSweep.stop();
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
   * Answers the parked attempt the freed slot went to, for the caller to run next (the others the
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
      outcome = await this.post(target, attempt);
      result = outcome.deliveryStatus === 'succeeded' ? 'succeeded' : 'failed';
    } finally {
      freed = await this.release(target.webhook_id, slot, result);
      // Should the request have thrown, nothing runs after this: the next attempts go through the queue.
      if (result === 'not-sent') await this.handOnThroughQueue(freed.splice(0));
    }
    this.metrics.webhookAttempts.inc({ outcome: result === 'succeeded' ? 'succeeded' : 'failed' });
    try {
      await this.record(target, outcome);
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

  private async record(target: DeliveryTarget, outcome: AttemptOutcome): Promise<void> {
    await this.system.run(async () => {
      // One statement records the attempt; only a final failure needs a transaction, to disable the webhook with it.
      if (outcome.deliveryStatus !== 'failed') {
        await this.deliveries.recordAttempt(target, outcome);
        return;
      }
      await this.system.transaction(async () => {
        if (await this.deliveries.recordAttempt(target, outcome)) await this.disable(target, this.failureReason(outcome));
      });
    });
  }

  /** Gives the slot back and schedules the wake of a circuit it opened; answers the parked attempts it was handed to. */
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

  private async post(target: DeliveryTarget, attempt: number): Promise<AttemptOutcome> {
    const body = Buffer.from(target.body, 'utf8');
    const secrets = [this.secrets.open(target.secret_sealed)];
    if (target.previous_secret_sealed && target.previous_secret_expires_at && target.previous_secret_expires_at > new Date()) {
      secrets.push(this.secrets.open(target.previous_secret_sealed));
    }
    const headers = deliveryHeaders({ body, envelopeId: target.event_id, event: target.event, deliveryId: target.id, attempt, secrets });
    const startedAt = new Date();
    let statusCode: number | null = null;
    let error: string | null = null;
    let responseExcerpt: string | null = null;
    try {
      const response = await this.http.post(target.url, {
        headers,
        body,
        timeoutMs: this.config.WEBHOOK_TIMEOUT_MS,
        maxResponseBytes: RESPONSE_EXCERPT_BYTES,
      });
      statusCode = response.status;
      responseExcerpt = withoutNul(response.bodyExcerpt) || null;
      if (response.status >= 300 && response.status < 400) error = `Redirect (${response.status}) not followed`;
      else if (response.status >= 400) error = `Receiver answered ${response.status}`;
    } catch (failure) {
      error =
        failure instanceof HttpTimeoutError
          ? `No answer within ${this.config.WEBHOOK_TIMEOUT_MS} ms`
          : withoutNul((failure as Error).message);
    }
    const durationMs = Date.now() - startedAt.getTime();
    const succeeded = statusCode !== null && statusCode >= 200 && statusCode < 300;
    const delays = this.config.WEBHOOK_RETRY_DELAYS_MS;
    const lastAttempt = attempt >= Math.min(MAX_DELIVERY_ATTEMPTS, delays.length) || statusCode === 410;
    const nextAttemptAt = succeeded || lastAttempt ? null : new Date(Date.now() + delays[attempt]);
    return {
      attempt,
      startedAt,
      durationMs,
      statusCode,
      error,
      responseExcerpt,
      nextAttemptAt,
      deliveryStatus: succeeded ? 'succeeded' : lastAttempt ? 'failed' : 'pending',
    };
  }

  private failureReason(outcome: AttemptOutcome): string {
    return outcome.statusCode === 410
      ? 'The receiver answered 410 Gone'
      : `${outcome.attempt} delivery attempts failed; the last: ${outcome.error ?? 'unknown error'}`;
  }

  /** Disables the webhook (once), stops its pending deliveries and tells the merchant why. */
  private async disable(target: DeliveryTarget, reason: string): Promise<void> {
    const disabled = await this.webhooks.disable(target.webhook_id, reason);
    await this.deliveries.cancelPending(target.webhook_id);
    if (!disabled) return;
    this.logger.warn({ webhook_id: target.webhook_id, reason }, 'webhook disabled');
    await this.notifications.add(target.store_id, 'webhook.disabled', `Webhook ${disabled.url} was disabled: ${reason}`, {
      webhook_id: disabled.id,
      url: disabled.url,
      reason,
      delivery_id: target.id,
    });
  }

  /**
   * Re-enqueues pending deliveries whose attempt is LOST_JOB_AFTER_MS overdue: their job was lost
   * (Redis flushed, crash), and are not parked in the gate. Each is claimed by moving its `next_attempt_at` to now (rows another
   * worker's sweep holds are skipped), so however many workers sweep, one re-enqueues it, once per
   * LOST_JOB_AFTER_MS while it stays pending. Parked deliveries are the gate's: for each webhook with
   * some, the sweep hands over what is free (a lease a dead worker left, a cool-down over) and, when
   * PostgreSQL holds more deliveries parked LOST_JOB_AFTER_MS ago than the gate knows of, enqueues the
   * ones it lost.
   */
  async requeueLost(): Promise<number> {
    // What the gate holds parked is marked so first (in bulk, here rather than at each parking), so the
    // lost-job query below leaves it to the gate.
    const parkedInGate = await this.gate.parked();
    if (parkedInGate.length > 0) await this.system.run(() => this.deliveries.park(parkedInGate));
    const due = await this.system.run(() =>
      queryRows<{ id: string; attempt_count: number }>(
        this.system.tx,
        `UPDATE webhook_deliveries SET next_attempt_at = now()
          WHERE id IN (SELECT id FROM webhook_deliveries
                        WHERE status = 'pending' AND parked_at IS NULL AND next_attempt_at < now() - make_interval(secs => $1)
                        ORDER BY next_attempt_at LIMIT 500 FOR UPDATE SKIP LOCKED)
          RETURNING id, attempt_count`,
        [this.runtime.LOST_JOB_AFTER_MS / 1000],
      ),
    );
    await Promise.all(due.map((delivery) => this.queue.enqueue(delivery.id, delivery.attempt_count + 1)));
    let lost = 0;
    for (const { webhook_id: webhookId, parked } of await this.system.run(() =>
      this.deliveries.parkedCounts(this.runtime.LOST_JOB_AFTER_MS),
    )) {
      const gate = await this.gate.wake(webhookId);
      await this.queue.enqueueHanded(gate.handed);
      if (parked <= gate.parked + gate.inFlight) continue;
      const rows = await this.system.run(() => this.deliveries.parkedOf(webhookId, this.runtime.LOST_JOB_AFTER_MS, PARKED_CHECK_LIMIT));
      const attempts = rows.map((row) => ({ deliveryId: row.id, attempt: row.attempt }));
      const known = await this.gate.known(webhookId, attempts);
      const unknown = attempts.filter((_, index) => !known[index]);
      // A delivery handed a slot since the first read has left the parked (its job unparks it first).
      const stillParked =
        unknown.length > 0 ? await this.system.run(() => this.deliveries.stillParked(unknown.map((a) => a.deliveryId))) : new Set();
      const missing = unknown.filter((a) => stillParked.has(a.deliveryId));
      await this.queue.enqueueLostParked(missing);
      lost += missing.length;
    }
    return due.length + lost;
  }
}

/** PostgreSQL text cannot hold NUL: a receiver's binary answer must not stop its attempt being recorded. */
function withoutNul(text: string): string {
  return text.replaceAll(String.fromCharCode(0), '');
}
