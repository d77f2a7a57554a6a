import { Command } from '@nestjs/cqrs';
import type { WebhookView } from '../../webhook.js';

export interface RegisteredWebhook {
  webhook: WebhookView;
  /** The secret in full, only when the server generated it (answered this once, never again). */
  generatedSecret: string | null;
}

export class RegisterWebhookCommand extends Command<RegisteredWebhook> {
  constructor(
    readonly storeId: string,
    readonly url: string,
    readonly events: string[],
    /** A secret the merchant supplied; null to have one generated. */
    readonly secret: string | null,
  ) {
    super();
  }
}
