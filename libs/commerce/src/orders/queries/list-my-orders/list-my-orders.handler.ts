import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { decodeCursor, toPage, type Page } from '@app/core';
import { OrderRepository } from '../../order.repository.js';
import { toOrderView, type OrderView } from '../../order.js';
import { ListMyOrdersQuery } from './list-my-orders.query.js';

/** The calling customer's own orders, newest first (the route is for customers: @Roles on the controller). */
@QueryHandler(ListMyOrdersQuery)
export class ListMyOrdersHandler implements IQueryHandler<ListMyOrdersQuery> {
  constructor(private readonly orders: OrderRepository) {}

  async execute({ user, params }: ListMyOrdersQuery): Promise<Page<OrderView>> {
    const rows = await this.orders.pageOfCustomerUser(
      user.userId,
      params.status,
      params.limit,
      decodeCursor(params.cursor),
    );
    return toPage(rows, params.limit, toOrderView);
  }
}
