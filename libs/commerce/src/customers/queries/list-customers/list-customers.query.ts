import { Query } from '@nestjs/cqrs';
import type { Page } from '@app/core';
import type { ListCustomersQuery as ListCustomersParams } from '../../customer.dto.js';
import type { CustomerView } from '../../customer.js';

export class ListCustomersQuery extends Query<Page<CustomerView>> {
  constructor(
    readonly storeId: string,
    readonly params: ListCustomersParams,
  ) {
    super();
  }
}
