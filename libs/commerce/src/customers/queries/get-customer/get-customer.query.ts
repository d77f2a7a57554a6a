import { Query } from '@nestjs/cqrs';
import type { CustomerView } from '../../customer.js';

export class GetCustomerQuery extends Query<CustomerView> {
  constructor(readonly customerId: string) {
    super();
  }
}
