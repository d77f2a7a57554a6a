import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { decodeCursor, toPage, type Page } from '@app/core';
import { OrderRepository } from '../../order.repository.js';
import { toOrderView, type OrderView } from '../../order.js';
import { ListStoreOrdersQuery } from './list-store-orders.query.js';

/** A store's orders for its staff, newest first, optionally of one status. */
@QueryHandler(ListStoreOrdersQuery)
export class ListStoreOrdersHandler implements IQueryHandler<ListStoreOrdersQuery> {
  constructor(private readonly orders: OrderRepository) {}

  async execute({ storeId, params }: ListStoreOrdersQuery): Promise<Page<OrderView>> {
    const rows = await this.orders.pageOfStore(storeId, params.status, params.limit, decodeCursor(params.cursor));
    return toPage(rows, params.limit, toOrderView);
  }
}
