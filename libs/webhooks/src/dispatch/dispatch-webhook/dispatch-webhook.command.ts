import { Command } from '@nestjs/cqrs';
import type { CatalogEventEnvelope } from '@app/core';

/** Turn a batch of store events into deliveries for their stores' active webhooks subscribed to each kind; acknowledges the batch. */
export class DispatchWebhookCommand extends Command<number> {
  constructor(
    readonly envelopes: readonly CatalogEventEnvelope[],
    /** The relay publications the events came in: what the handler acknowledges. */
    readonly publications: readonly string[],
  ) {
    super();
  }
}
