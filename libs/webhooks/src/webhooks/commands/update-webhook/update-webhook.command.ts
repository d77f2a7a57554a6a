import { Command } from '@nestjs/cqrs';
import type { WebhookStatus, WebhookView } from '../../webhook.js';

export interface WebhookUpdate {
  url?: string;
  events?: string[];
  secret?: string;
  status?: WebhookStatus;
}

export class UpdateWebhookCommand extends Command<WebhookView> {
  constructor(
    readonly webhookId: string,
    readonly changes: WebhookUpdate,
  ) {
    super();
  }
}
