import { Command } from '@nestjs/cqrs';
import type { CatalogEventEnvelope } from '@app/core';

/**
 * Turn a batch of store events into deliveries for their stores' webhooks subscribed to each kind (pending for
 * active webhooks, skipped for disabled ones); acknowledges the batch.
 */
export class DispatchWebhookCommand extends Command<number> {
  constructor(
    readonly envelopes: readonly CatalogEventEnvelope[],
    /** The relay publications the events came in: what the handler acknowledges. */
    readonly publications: readonly string[],
  ) {
    super();
  }
}
