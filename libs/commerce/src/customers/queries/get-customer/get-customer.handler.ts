import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { ApiError } from '@app/core';
import { CustomerRepository } from '../../customer.repository.js';
import { toCustomerView, type CustomerView } from '../../customer.js';
import { GetCustomerQuery } from './get-customer.query.js';

@QueryHandler(GetCustomerQuery)
export class GetCustomerHandler implements IQueryHandler<GetCustomerQuery> {
  constructor(private readonly customers: CustomerRepository) {}

  async execute({ customerId }: GetCustomerQuery): Promise<CustomerView> {
    const customer = await this.customers.findVisible(customerId);
    if (!customer) throw ApiError.notFound('Customer');
    return toCustomerView(customer);
  }
}
