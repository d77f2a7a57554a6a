import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { ApiError } from '@app/core';
import { StoreRepository } from '../../store.repository.js';
import { toStoreView, type StoreView } from '../../store.js';
import { GetStoreQuery } from './get-store.query.js';

@QueryHandler(GetStoreQuery)
export class GetStoreHandler implements IQueryHandler<GetStoreQuery> {
  constructor(private readonly stores: StoreRepository) {}

  async execute({ storeId }: GetStoreQuery): Promise<StoreView> {
    const store = await this.stores.findVisible(storeId);
    if (!store) throw ApiError.notFound('Store');
    return toStoreView(store);
  }
}
