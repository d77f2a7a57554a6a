import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ApiError } from '@app/core';
import { WebhookRepository } from '../../webhook.repository.js';
import { WebhookSecrets } from '../../webhook-secrets.js';
import { SECRET_OVERLAP_MS, toWebhookView } from '../../webhook.js';
import { RotateWebhookSecretCommand, type RotatedSecret } from './rotate-webhook-secret.command.js';

/**
 * A new generated secret; the current one becomes the previous and keeps signing beside it for
 * SECRET_OVERLAP_MS (24 h). Rotating again within the overlap retires the older previous secret.
 */
@CommandHandler(RotateWebhookSecretCommand)
export class RotateWebhookSecretHandler implements ICommandHandler<RotateWebhookSecretCommand> {
  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly secrets: WebhookSecrets,
  ) {}

  async execute({ webhookId }: RotateWebhookSecretCommand): Promise<RotatedSecret> {
    if (!(await this.webhooks.findForUpdate(webhookId))) throw ApiError.notFound('Webhook');
    const secret = this.secrets.generate();
    const stored = this.secrets.store(secret);
    const row = await this.webhooks.rotate(
      webhookId,
      stored.sealed,
      stored.hint,
      new Date(Date.now() + SECRET_OVERLAP_MS),
    );
    return { webhook: toWebhookView(row), secret };
  }
}
