import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { ApiError } from '@app/core';
import { WebhookRepository } from '../../webhook.repository.js';
import { toWebhookView, type WebhookView } from '../../webhook.js';
import { GetWebhookQuery } from './get-webhook.query.js';

@QueryHandler(GetWebhookQuery)
export class GetWebhookHandler implements IQueryHandler<GetWebhookQuery> {
  constructor(private readonly webhooks: WebhookRepository) {}

  async execute({ webhookId }: GetWebhookQuery): Promise<WebhookView> {
    const webhook = await this.webhooks.findVisible(webhookId);
    if (!webhook) throw ApiError.notFound('Webhook');
    return toWebhookView(webhook);
  }
}
