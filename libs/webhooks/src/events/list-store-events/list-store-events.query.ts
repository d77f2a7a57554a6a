import { Query } from '@nestjs/cqrs';
import type { Page, StoreEventEnvelope, StoreEventName } from '@app/core';

/** A store's events, oldest first: the envelopes its webhooks receive. */
export class ListStoreEventsQuery extends Query<Page<StoreEventEnvelope>> {
  constructor(
    readonly storeId: string,
    /** Only events created at or after this time; null: from the oldest kept. */
    readonly since: Date | null,
    readonly type: StoreEventName | undefined,
    readonly limit: number,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}
