import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { RegisterStoreCustomerCommand } from '@app/auth';
import { GoTrueError, OutboxService } from '@app/core';
import { CustomerRepository } from '../../customer.repository.js';
import { customerEventData } from '../../customer.js';

/**
 * A customer signing up becomes a new customer record of the store (`customer.created`), inside the
 * sign-up transaction. An e-mail the store already has a customer for is refused (422): sign-up does
 * not verify e-mail addresses, so linking an existing record would let anyone claim it.
 */
@CommandHandler(RegisterStoreCustomerCommand)
export class RegisterStoreCustomerHandler implements ICommandHandler<RegisterStoreCustomerCommand> {
  constructor(
    private readonly customers: CustomerRepository,
    private readonly outbox: OutboxService,
  ) {}

  async execute({ storeId, userId, email, name }: RegisterStoreCustomerCommand): Promise<{ customerId: string }> {
    const created = await this.customers.insert(storeId, { name: name ?? email.split('@')[0], email, userId });
    if (created) {
      await this.outbox.append(storeId, 'customer.created', customerEventData(created));
      return { customerId: created.id };
    }
    // Never linked on an unverified e-mail: that would hand a stranger the record and its orders.
    throw new GoTrueError(
      422,
      'user_already_exists',
      'This store already has a customer with that e-mail; ask the store to reach you',
    );
  }
}
