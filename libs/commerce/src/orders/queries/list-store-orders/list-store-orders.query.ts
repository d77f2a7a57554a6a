import { Query } from '@nestjs/cqrs';
import type { Page } from '@app/core';
import type { ListOrdersQuery as ListOrdersParams } from '../../order.dto.js';
import type { OrderView } from '../../order.js';

export class ListStoreOrdersQuery extends Query<Page<OrderView>> {
  constructor(
    readonly storeId: string,
    readonly params: ListOrdersParams,
  ) {
    super();
  }
}
