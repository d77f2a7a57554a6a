import { Command } from '@nestjs/cqrs';
import type { StoreEventEnvelope } from '@app/core';

/** Turn one store event into deliveries for the store's active webhooks subscribed to its kind. */
export class DispatchWebhookCommand extends Command<number> {
  constructor(readonly envelope: StoreEventEnvelope) {
    super();
  }
}
