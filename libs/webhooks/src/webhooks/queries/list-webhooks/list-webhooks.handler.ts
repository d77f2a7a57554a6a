import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { decodeCursor, toPage, type Page } from '@app/core';
import { WebhookRepository } from '../../webhook.repository.js';
import { toWebhookView, type WebhookView } from '../../webhook.js';
import { ListWebhooksQuery } from './list-webhooks.query.js';

/** A store's webhooks, newest first. */
@QueryHandler(ListWebhooksQuery)
export class ListWebhooksHandler implements IQueryHandler<ListWebhooksQuery> {
  constructor(private readonly webhooks: WebhookRepository) {}

  async execute({ storeId, limit, cursor }: ListWebhooksQuery): Promise<Page<WebhookView>> {
    return toPage(await this.webhooks.pageOfStore(storeId, limit, decodeCursor(cursor)), limit, toWebhookView);
  }
}
