import { Inject, Injectable, Logger } from '@nestjs/common';
import { HttpTimeoutError, SafeHttpClient, SecretBox, SystemDb } from '@app/core';
import { NotificationRepository } from '@app/notifications';
import { deliveryHeaders } from '../signing/webhook-signature.js';
import { webhooksConfig, type WebhooksConfig } from '../webhooks.config.js';
import { WebhookRepository } from '../webhooks/webhook.repository.js';
import { DeliveryRepository, type AttemptOutcome, type DeliveryTarget } from './delivery.repository.js';
import { decideRetry, failureReason } from './retry-policy.js';

/** How much of a receiver's answer is kept in the delivery log. */
const RESPONSE_EXCERPT_BYTES = 2048;

/**
 * One attempt of a delivery, once the gate gave it a slot: signs the envelope (with the previous secret
 * too while it overlaps), POSTs it, and records what came of it by the retry policy. The 5th failure or
 * a 410 Gone disables the webhook, stops its pending deliveries and notifies the merchant, in the
 * transaction that records the attempt.
 */
@Injectable()
export class DeliveryAttempt {
  private readonly logger = new Logger(DeliveryAttempt.name);

  constructor(
    private readonly deliveries: DeliveryRepository,
    private readonly webhooks: WebhookRepository,
    private readonly notifications: NotificationRepository,
    private readonly http: SafeHttpClient,
    private readonly secrets: SecretBox,
    private readonly system: SystemDb,
    @Inject(webhooksConfig.KEY) private readonly config: WebhooksConfig,
  ) {}

  /** Signs and sends attempt `attempt`; returns what it came to. Never throws for the receiver's failures. */
  async send(target: DeliveryTarget, attempt: number): Promise<AttemptOutcome> {
    const body = Buffer.from(target.body, 'utf8');
    const secrets = [this.secrets.open(target.secret_sealed)];
    if (
      target.previous_secret_sealed &&
      target.previous_secret_expires_at &&
      target.previous_secret_expires_at > new Date()
    ) {
      secrets.push(this.secrets.open(target.previous_secret_sealed));
    }
    const headers = deliveryHeaders({
      body,
      envelopeId: target.event_id,
      event: target.event,
      deliveryId: target.id,
      attempt,
      secrets,
    });
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
    const decision = decideRetry(attempt, statusCode, this.config.WEBHOOK_RETRY_DELAYS_MS);
    return { attempt, startedAt, durationMs, statusCode, error, responseExcerpt, ...decision };
  }

  /** Records the attempt and the delivery's new state; nothing when another worker recorded this attempt first. */
  async record(target: DeliveryTarget, outcome: AttemptOutcome): Promise<void> {
    await this.system.run(async () => {
      // One statement records the attempt; only a final failure needs a transaction, to disable the webhook with it.
      if (outcome.deliveryStatus !== 'failed') {
        await this.deliveries.recordAttempt(target, outcome);
        return;
      }
      await this.system.transaction(async () => {
        if (await this.deliveries.recordAttempt(target, outcome)) await this.disable(target, failureReason(outcome));
      });
    });
  }

  /** Disables the webhook (once), stops its pending deliveries and tells the merchant why. */
  private async disable(target: DeliveryTarget, reason: string): Promise<void> {
    const disabled = await this.webhooks.disable(target.webhook_id, reason);
    await this.deliveries.cancelPending(target.webhook_id);
    if (!disabled) return;
    this.logger.warn({ webhook_id: target.webhook_id, reason }, 'webhook disabled');
    await this.notifications.add(
      target.store_id,
      'webhook.disabled',
      `Webhook ${disabled.url} was disabled: ${reason}`,
      {
        webhook_id: disabled.id,
        url: disabled.url,
        reason,
        delivery_id: target.id,
      },
    );
  }
}

/** PostgreSQL text cannot hold NUL: a receiver's binary answer must not stop its attempt being recorded. */
function withoutNul(text: string): string {
  return text.replaceAll(String.fromCharCode(0), '');
}
