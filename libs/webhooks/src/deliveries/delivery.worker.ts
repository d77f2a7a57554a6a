import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import type { Job } from 'bull';
import {
  AppConfig,
  HttpTimeoutError,
  jobDrainMs,
  MetricsService,
  PeriodicTask,
  QueueWorker,
  queryRows,
  SafeHttpClient,
  SecretBox,
  DbScopes,
} from '@app/core';
import { NotificationRepository } from '../notifications/notification.repository.js';
import { MAX_DELIVERY_ATTEMPTS } from '../webhooks/webhook.js';
import { WebhookRepository } from '../webhooks/webhook.repository.js';
import { deliveryHeaders } from '../signing/webhook-signature.js';
import { DeliveryQueue, type DeliveryJob } from './delivery-queue.js';
import { DeliveryRepository, type AttemptOutcome, type DeliveryTarget } from './delivery.repository.js';

/** How much of a receiver's answer is kept in the delivery log. */
const RESPONSE_EXCERPT_BYTES = 2048;

/**
 * Runs delivery attempts (worker processes): signs and POSTs the envelope, records the attempt,
 * and schedules the next one on WEBHOOK_RETRY_DELAYS_MS, or, after the 5th failure or a 410 Gone,
 * disables the webhook, stops its pending deliveries and notifies the merchant.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, OnModuleDestroy, BeforeApplicationShutdown {
  private readonly logger = new Logger(DeliveryWorker.name);
  private readonly lostJobSweep = new PeriodicTask(
    'lost delivery job sweep',
    async () => ({ requeued: await this.requeueLost() }),
    this.logger,
  );
  private readonly jobs: QueueWorker<DeliveryJob>;

  constructor(
    private readonly queue: DeliveryQueue,
    private readonly deliveries: DeliveryRepository,
    private readonly webhooks: WebhookRepository,
    private readonly notifications: NotificationRepository,
    private readonly http: SafeHttpClient,
    private readonly secrets: SecretBox,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly scopes: DbScopes,
    private readonly metrics: MetricsService,
    private readonly config: AppConfig,
  ) {
    this.jobs = new QueueWorker(queue.queue, this.logger);
  }

  onApplicationBootstrap(): void {
    if (this.config.APP_ROLE === 'api') return;
    this.jobs.start(8, (job: Job<DeliveryJob>) =>
      // A job never fails silently: the delivery stays pending and the lost-job sweep retries it.
      this.attempt(job.data.deliveryId, job.data.attempt).catch((error: Error) =>
        this.logger.error({ err: { message: error.message }, delivery_id: job.data.deliveryId }, 'delivery attempt could not be recorded'),
      ),
    );
    this.lostJobSweep.start(this.config.JOB_SWEEP_INTERVAL_MS);
  }

  /** First step of a shutdown: no new attempt; the running ones get to finish (or are handed back to the queue). */
  onModuleDestroy(): void {
    void this.jobs.stop(jobDrainMs(this.config.SHUTDOWN_TIMEOUT_MS));
  }

  /** Before the connections close: the sweep and the running attempts are done. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.lostJobSweep.stop();
    await this.jobs.stop(jobDrainMs(this.config.SHUTDOWN_TIMEOUT_MS));
  }

  /** One attempt of one delivery; a repeated or stale job (attempt already made, delivery no longer pending) does nothing. */
  async attempt(deliveryId: string, attempt: number): Promise<void> {
    const target = await this.scopes.asSystem(() => this.deliveries.findTarget(deliveryId));
    if (!target || target.status !== 'pending' || target.attempt_count >= attempt) return;
    if (target.webhook_status !== 'active') {
      await this.scopes.asSystem(() => this.deliveries.cancelPending(target.webhook_id));
      return;
    }
    const outcome = await this.post(target, attempt);
    this.metrics.webhookAttempts.inc({ outcome: outcome.deliveryStatus === 'succeeded' ? 'succeeded' : 'failed' });
    await this.scopes.asSystem(async () => {
      // One statement records the attempt; only a final failure needs a transaction, to disable the webhook with it.
      if (outcome.deliveryStatus !== 'failed') {
        await this.deliveries.recordAttempt(target, outcome);
        return;
      }
      await this.txHost.withTransaction(async () => {
        if (await this.deliveries.recordAttempt(target, outcome)) await this.disable(target, this.failureReason(outcome));
      });
    });
    if (outcome.deliveryStatus === 'pending')
      await this.queue.enqueue(deliveryId, attempt + 1, outcome.nextAttemptAt!.getTime() - Date.now());
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
   * (Redis flushed, crash). Each is claimed by moving its `next_attempt_at` to now (rows another
   * worker's sweep holds are skipped), so however many workers sweep, one re-enqueues it, once per
   * LOST_JOB_AFTER_MS while it stays pending.
   */
  async requeueLost(): Promise<number> {
    const due = await this.scopes.asSystem(() =>
      queryRows<{ id: string; attempt_count: number }>(
        this.txHost.tx,
        `UPDATE webhook_deliveries SET next_attempt_at = now()
          WHERE id IN (SELECT id FROM webhook_deliveries
                        WHERE status = 'pending' AND next_attempt_at < now() - make_interval(secs => $1)
                        ORDER BY next_attempt_at LIMIT 500 FOR UPDATE SKIP LOCKED)
          RETURNING id, attempt_count`,
        [this.config.LOST_JOB_AFTER_MS / 1000],
      ),
    );
    await Promise.all(due.map((delivery) => this.queue.enqueue(delivery.id, delivery.attempt_count + 1)));
    return due.length;
  }
}

/** PostgreSQL text cannot hold NUL: a receiver's binary answer must not stop its attempt being recorded. */
function withoutNul(text: string): string {
  return text.replaceAll(String.fromCharCode(0), '');
}
