import { DomainError, type FieldError } from '@app/core';

/**
 * A refusal by commerce's rules. Each area declares its own (`orders/order.errors.ts`, …); their HTTP
 * answers are written once, in `commerce-errors.http.ts`.
 */
export abstract class CommerceError extends DomainError {
  readonly context = 'commerce';
}

/** Values a rule refuses, field by field (a product's compare price below its price, a key expiring in the past). */
export class InvalidFields extends CommerceError {
  readonly kind = 'invalid_fields';

  constructor(readonly fields: FieldError[]) {
    super('Request validation failed');
  }
}
