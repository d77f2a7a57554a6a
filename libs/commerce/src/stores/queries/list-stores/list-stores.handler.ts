import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { decodeCursor, toPage, type Page } from '@app/core';
import { StoreRepository } from '../../store.repository.js';
import { toStoreView, type StoreView } from '../../store.js';
import { ListStoresQuery } from './list-stores.query.js';

@QueryHandler(ListStoresQuery)
export class ListStoresHandler implements IQueryHandler<ListStoresQuery> {
  constructor(private readonly stores: StoreRepository) {}

  async execute({ limit, cursor }: ListStoresQuery): Promise<Page<StoreView>> {
    return toPage(await this.stores.pageVisible(limit, decodeCursor(cursor)), limit, toStoreView);
  }
}
