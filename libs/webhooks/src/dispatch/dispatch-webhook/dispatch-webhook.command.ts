import { Command } from '@nestjs/cqrs';
import type { StoreEventEnvelope } from '@app/core';

/** Turn a batch of store events into deliveries for their stores' active webhooks subscribed to each kind. */
export class DispatchWebhookCommand extends Command<number> {
  constructor(readonly envelopes: StoreEventEnvelope[]) {
    super();
  }
}
