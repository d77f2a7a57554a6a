import { Command } from '@nestjs/cqrs';
import type { CatalogEventEnvelope } from '@app/core';

/**
 * Tell merchants which of their products a batch of `inventory.updated` events left out of stock; acknowledges the
 * batch.
 */
export class NotifyOutOfStockCommand extends Command<number> {
  constructor(
    readonly envelopes: CatalogEventEnvelope<'inventory.updated'>[],
    /** The relay publications the events came in: what the handler acknowledges. */
    readonly publications: readonly string[],
  ) {
    super();
  }
}
