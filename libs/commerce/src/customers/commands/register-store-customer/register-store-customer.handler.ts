import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { RegisterStoreCustomerCommand } from '@app/auth';
import { GoTrueError, OutboxService } from '@app/core';
import { CustomerRepository } from '../../customer.repository.js';
import { customerEventData } from '../../customer.js';

/**
 * A customer signing up becomes the store's customer record: a new one (`customer.created`), or the
 * record staff already made for that e-mail, now linked to the account (`customer.updated`).
 * Runs inside the sign-up transaction.
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
    const claimed = await this.customers.claim(storeId, email, userId);
    if (!claimed) throw new GoTrueError(422, 'user_already_exists', 'This store already has a customer account with that e-mail');
    await this.outbox.append(storeId, 'customer.updated', customerEventData(claimed));
    return { customerId: claimed.id };
  }
}
