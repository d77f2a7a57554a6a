import { Command } from '@nestjs/cqrs';
import type { UpdateCustomerDto } from '../../customer.dto.js';
import type { CustomerView } from '../../customer.js';

export class UpdateCustomerCommand extends Command<CustomerView> {
  constructor(
    readonly customerId: string,
    readonly fields: UpdateCustomerDto,
  ) {
    super();
  }
}
