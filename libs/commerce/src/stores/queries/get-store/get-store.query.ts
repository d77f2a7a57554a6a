import { Query } from '@nestjs/cqrs';
import type { StoreView } from '../../store.js';

export class GetStoreQuery extends Query<StoreView> {
  constructor(readonly storeId: string) {
    super();
  }
}
