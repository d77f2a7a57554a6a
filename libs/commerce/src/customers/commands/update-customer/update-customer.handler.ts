import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { OutboxService } from '@app/core';
import { CustomerEmailTaken, CustomerNotFound } from '../../customer.errors.js';
import { CustomerRepository, type CustomerFields } from '../../customer.repository.js';
import { customerEventData, toCustomerView, type CustomerRow, type CustomerView } from '../../customer.js';
import { UpdateCustomerCommand } from './update-customer.command.js';

/**
 * Changes name, e-mail or phone of a customer record (never the account's sign-in e-mail). Fires
 * `customer.updated` once when something changed; a request that changes nothing writes nothing and fires nothing.
 */
@CommandHandler(UpdateCustomerCommand)
export class UpdateCustomerHandler implements ICommandHandler<UpdateCustomerCommand> {
  constructor(
    private readonly customers: CustomerRepository,
    private readonly outbox: OutboxService,
  ) {}

  async execute({ customerId, fields }: UpdateCustomerCommand): Promise<CustomerView> {
    const current = await this.customers.findForUpdate(customerId);
    if (!current) throw new CustomerNotFound();
    const changes = changedFields(current, fields);
    if (Object.keys(changes).length === 0) return toCustomerView(current);
    const customer = await this.customers.update(customerId, changes);
    if (customer === 'email_taken') throw new CustomerEmailTaken();
    await this.outbox.append(customer.store_id, 'customer.updated', customerEventData(customer));
    return toCustomerView(customer);
  }
}

/** The given fields whose value differs from the record's (an e-mail's change of case is a change). */
function changedFields(current: CustomerRow, fields: CustomerFields): CustomerFields {
  const changes: CustomerFields = {};
  if (fields.name !== undefined && fields.name !== current.name) changes.name = fields.name;
  if (fields.email !== undefined && fields.email !== current.email) changes.email = fields.email;
  if (fields.phone !== undefined && fields.phone !== current.phone) changes.phone = fields.phone;
  return changes;
}
