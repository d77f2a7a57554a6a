import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { OutboxService } from '@app/core';
import { CustomerEmailTaken } from '../../customer.errors.js';
import { CustomerRepository } from '../../customer.repository.js';
import { customerEventData, toCustomerView, type CustomerView } from '../../customer.js';
import { CreateCustomerCommand } from './create-customer.command.js';

/** Staff create a customer record (not linked to an account until that e-mail signs up as a customer). */
@CommandHandler(CreateCustomerCommand)
export class CreateCustomerHandler implements ICommandHandler<CreateCustomerCommand> {
  constructor(
    private readonly customers: CustomerRepository,
    private readonly outbox: OutboxService,
  ) {}

  async execute({ storeId, fields }: CreateCustomerCommand): Promise<CustomerView> {
    const customer = await this.customers.insert(storeId, {
      name: fields.name,
      email: fields.email,
      phone: fields.phone,
    });
    if (!customer) throw new CustomerEmailTaken();
    await this.outbox.append(storeId, 'customer.created', customerEventData(customer));
    return toCustomerView(customer);
  }
}
