import { Command } from '@nestjs/cqrs';

/**
 * Sign-up with `data.role = "customer"`: the store context records the new user as a customer of
 * the store (and fires `customer.created`), inside the sign-up transaction. Handled by commerce.
 */
export class RegisterStoreCustomerCommand extends Command<{ customerId: string }> {
  constructor(
    readonly storeId: string,
    readonly userId: string,
    readonly email: string,
    readonly name: string | null,
  ) {
    super();
  }
}
