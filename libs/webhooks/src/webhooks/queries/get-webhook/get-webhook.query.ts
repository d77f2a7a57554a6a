import { Query } from '@nestjs/cqrs';
import type { WebhookView } from '../../webhook.js';

export class GetWebhookQuery extends Query<WebhookView> {
  constructor(readonly webhookId: string) {
    super();
  }
}
