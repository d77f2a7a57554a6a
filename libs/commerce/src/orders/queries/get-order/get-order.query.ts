import { Query } from '@nestjs/cqrs';
import type { OrderView } from '../../order.js';

export class GetOrderQuery extends Query<OrderView> {
  constructor(readonly orderId: string) {
    super();
  }
}
