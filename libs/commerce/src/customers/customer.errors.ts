import { CommerceError } from '../commerce-error.js';

/** The customer record named does not exist, or the caller cannot see it. */
export class CustomerNotFound extends CommerceError {
  readonly kind = 'customer_not_found';

  constructor() {
    super('Customer not found');
  }
}

/** E-mails are unique in a store regardless of case (customers_email_key). */
export class CustomerEmailTaken extends CommerceError {
  readonly kind = 'customer_email_taken';

  constructor() {
    super('This store already has a customer with that e-mail');
  }
}

export type CustomerError = CustomerNotFound | CustomerEmailTaken;
