import { Command } from '@nestjs/cqrs';
import type { CreateCustomerDto } from '../../customer.dto.js';
import type { CustomerView } from '../../customer.js';

export class CreateCustomerCommand extends Command<CustomerView> {
  constructor(
    readonly storeId: string,
    readonly fields: CreateCustomerDto,
  ) {
    super();
  }
}
