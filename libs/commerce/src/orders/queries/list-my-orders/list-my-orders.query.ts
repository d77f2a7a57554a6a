import { Query } from '@nestjs/cqrs';
import type { Page, UserPrincipal } from '@app/core';
import type { ListOrdersQuery as ListOrdersParams } from '../../order.dto.js';
import type { OrderView } from '../../order.js';

export class ListMyOrdersQuery extends Query<Page<OrderView>> {
  constructor(
    readonly user: UserPrincipal,
    readonly params: ListOrdersParams,
  ) {
    super();
  }
}
