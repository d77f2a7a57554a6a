import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ApiError } from '@app/core';
import { WebhookRepository } from '../../webhook.repository.js';
import { DeleteWebhookCommand } from './delete-webhook.command.js';

/** Deletes the webhook with its delivery log; queued attempts find no delivery and do nothing. */
@CommandHandler(DeleteWebhookCommand)
export class DeleteWebhookHandler implements ICommandHandler<DeleteWebhookCommand> {
  constructor(private readonly webhooks: WebhookRepository) {}

  async execute({ webhookId }: DeleteWebhookCommand): Promise<void> {
    if (!(await this.webhooks.findForUpdate(webhookId))) throw ApiError.notFound('Webhook');
    await this.webhooks.delete(webhookId);
  }
}
