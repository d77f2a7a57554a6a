import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { ApiError } from '@app/core';
import { OrderRepository } from '../../order.repository.js';
import { toOrderView, type OrderView } from '../../order.js';
import { GetOrderQuery } from './get-order.query.js';

@QueryHandler(GetOrderQuery)
export class GetOrderHandler implements IQueryHandler<GetOrderQuery> {
  constructor(private readonly orders: OrderRepository) {}

  async execute({ orderId }: GetOrderQuery): Promise<OrderView> {
    const order = await this.orders.findDetails(orderId);
    if (!order) throw ApiError.notFound('Order');
    return toOrderView(order);
  }
}
