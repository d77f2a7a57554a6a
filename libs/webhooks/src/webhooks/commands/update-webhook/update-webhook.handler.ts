import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ApiError } from '@app/core';
import { DeliveryRepository } from '../../../deliveries/delivery.repository.js';
import { DeliveryStarter } from '../../delivery-starter.js';
import { WebhookRepository, type WebhookChanges } from '../../webhook.repository.js';
import { WebhookSecrets } from '../../webhook-secrets.js';
import { WebhookUrlChecker } from '../../webhook-url.checker.js';
import { toWebhookView, type WebhookView } from '../../webhook.js';
import { UpdateWebhookCommand } from './update-webhook.command.js';

/**
 * Changes url (checked again), events, secret (replaced at once: the new one alone signs from the
 * next attempt, and a rotated-out secret still in its overlap stops signing too) and status.
 * Disabling cancels the pending deliveries (events from then on are recorded as `skipped` deliveries);
 * re-enabling clears `disabled_reason`, lets new events through and, once committed, closes the
 * webhook's circuit breaker in the delivery gate, so the next event goes at once when a slot is free
 * (requests still in flight keep their slots). Asking for the status the webhook already has changes
 * nothing (an automatic `disabled_reason` is kept).
 */
@CommandHandler(UpdateWebhookCommand)
export class UpdateWebhookHandler implements ICommandHandler<UpdateWebhookCommand> {
  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly deliveries: DeliveryRepository,
    private readonly secrets: WebhookSecrets,
    private readonly urls: WebhookUrlChecker,
    private readonly starter: DeliveryStarter,
  ) {}

  async execute({ webhookId, changes }: UpdateWebhookCommand): Promise<WebhookView> {
    // Name resolution happens before the row lock, so a slow DNS answer does not hold it.
    const url = changes.url === undefined ? undefined : await this.urls.check(changes.url);
    const current = await this.webhooks.findForUpdate(webhookId);
    if (!current) throw ApiError.notFound('Webhook');
    const stored = changes.secret === undefined ? undefined : this.secrets.store(changes.secret);
    const status = changes.status === current.status ? undefined : changes.status;
    const update: WebhookChanges = {
      url,
      events: changes.events,
      secretSealed: stored?.sealed,
      secretHint: stored?.hint,
      status,
    };
    if (Object.values(update).every((value) => value === undefined)) return toWebhookView(current);
    const row = await this.webhooks.update(webhookId, update);
    if (stored) await this.webhooks.dropPreviousSecret(webhookId);
    if (status === 'disabled') await this.deliveries.cancelPending(webhookId);
    if (status === 'active') await this.starter.resetGate(webhookId);
    return toWebhookView(row);
  }
}
