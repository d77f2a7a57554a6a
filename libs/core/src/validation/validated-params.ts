// The one place Nest's own decorators are used (eslint.config.js refuses them elsewhere).
// eslint-disable-next-line no-restricted-imports
import { Body as NestBody, Injectable, Query as NestQuery, type PipeTransform, type Type } from '@nestjs/common';
import { strictValidationPipe } from '../errors/validation.js';
import { HeldValidation } from '../idempotency/held-validation.js';
import { RouteTransactions } from '../transactions/route-transactions.js';

type Pipe = Type<PipeTransform> | PipeTransform;

/**
 * The app's validation pipe: the strict pipe (unknown fields refused, DTOs built and checked, the error envelope's
 * field list), with a keyed write's refusal held back until its Idempotency-Key has had its say (HeldValidation).
 * Nest makes one per module that uses it.
 */
@Injectable()
export class AppValidation extends HeldValidation {
  constructor(routes: RouteTransactions) {
    super(strictValidationPipe(), routes);
  }
}

/**
 * A route's body, validated by the app's pipe (`AppValidation`), then by `pipes`. Used in place of Nest's
 * `@Body()` (the linter refuses that one in the libraries).
 *
 * The pipe is the body's and the query's own rather than the app's (a global pipe): Nest runs a global pipe on
 * every path parameter and custom parameter (`@CurrentStoreAccess()`) too, where it has nothing to do (a path
 * parameter is a string already, a custom one passes through), at some seven promises per parameter and request.
 * A route's path parameters are strings (route-validation.spec.ts checks): a conversion is a pipe of the parameter.
 */
export function Body(...pipes: Pipe[]): ParameterDecorator {
  return NestBody(AppValidation, ...pipes);
}

/**
 * A route's query (or one field of it), validated by the app's pipe, then by `pipes`: in place of Nest's `@Query()`.
 */
export function Query(property?: string, ...pipes: Pipe[]): ParameterDecorator {
  return property === undefined ? NestQuery(AppValidation, ...pipes) : NestQuery(property, AppValidation, ...pipes);
}
