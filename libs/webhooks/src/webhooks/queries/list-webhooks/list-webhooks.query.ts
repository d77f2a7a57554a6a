import { Query } from '@nestjs/cqrs';
import type { Page } from '@app/core';
import type { WebhookView } from '../../webhook.js';

export class ListWebhooksQuery extends Query<Page<WebhookView>> {
  constructor(
    readonly storeId: string,
    readonly limit: number,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}
