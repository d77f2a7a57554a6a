import { Query } from '@nestjs/cqrs';
import type { Page } from '@app/core';
import type { StoreView } from '../../store.js';

/** The stores the caller can see (row-level security filters them). */
export class ListStoresQuery extends Query<Page<StoreView>> {
  constructor(
    readonly limit: number,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}
