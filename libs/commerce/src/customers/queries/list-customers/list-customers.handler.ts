import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { decodeCursor, toPage, type Page } from '@app/core';
import { CustomerRepository } from '../../customer.repository.js';
import { toCustomerView, type CustomerView } from '../../customer.js';
import { ListCustomersQuery } from './list-customers.query.js';

@QueryHandler(ListCustomersQuery)
export class ListCustomersHandler implements IQueryHandler<ListCustomersQuery> {
  constructor(private readonly customers: CustomerRepository) {}

  async execute({ storeId, params }: ListCustomersQuery): Promise<Page<CustomerView>> {
    const rows = await this.customers.pageOfStore(storeId, params.q, params.limit, decodeCursor(params.cursor));
    return toPage(rows, params.limit, toCustomerView);
  }
}
