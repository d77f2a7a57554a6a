import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { ApiError, decodeCursor, toPage, type Page } from '@app/core';
import { OrderRepository } from '../../order.repository.js';
import { toOrderView, type OrderView } from '../../order.js';
import { ListMyOrdersQuery } from './list-my-orders.query.js';

/** The calling customer's own orders, newest first. Staff list a store's orders on the store route. */
@QueryHandler(ListMyOrdersQuery)
export class ListMyOrdersHandler implements IQueryHandler<ListMyOrdersQuery> {
  constructor(private readonly orders: OrderRepository) {}

  async execute({ user, params }: ListMyOrdersQuery): Promise<Page<OrderView>> {
    if (user.role !== 'customer') {
      throw ApiError.forbidden(
        "This lists a customer's own orders; staff list a store's orders with GET /functions/v1/stores/{store_id}/orders",
      );
    }
    const rows = await this.orders.pageOfCustomerUser(user.userId, params.status, params.limit, decodeCursor(params.cursor));
    return toPage(rows, params.limit, toOrderView);
  }
}
