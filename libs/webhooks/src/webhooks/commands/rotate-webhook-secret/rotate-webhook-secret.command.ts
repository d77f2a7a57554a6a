import { Command } from '@nestjs/cqrs';
import type { WebhookView } from '../../webhook.js';

export interface RotatedSecret {
  webhook: WebhookView;
  /** The new secret in full (answered this once). */
  secret: string;
}

export class RotateWebhookSecretCommand extends Command<RotatedSecret> {
  constructor(readonly webhookId: string) {
    super();
  }
}
