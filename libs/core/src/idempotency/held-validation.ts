import type { ArgumentMetadata, PipeTransform } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { currentExchange } from '../observability/request-context.js';
import { IDEMPOTENCY_HEADER, isIdempotentOperation } from './idempotency.openapi.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The app pipe's refusal of a keyed write's input, held back until its key is looked at (HeldValidation). */
    heldValidationError?: unknown;
  }
}

/** A write that carries an `Idempotency-Key` header, well formed or not: IdempotentWrites looks at it first. */
function carriesKey(request: FastifyRequest): boolean {
  return (
    request.method !== 'GET' &&
    request.headers[IDEMPOTENCY_HEADER] !== undefined &&
    isIdempotentOperation(request.method, request.url.split('?')[0]!)
  );
}

/**
 * The app's validation pipe, with a keyed write's refusal held back. A write's `Idempotency-Key` is
 * looked at before its input: a malformed key answers 400, a key reused with another route or body 422,
 * one still running 409, and a kept answer is replayed, whatever the body. Nest applies the pipes before
 * the handler, where IdempotentWrites runs (transactions/route-transactions.ts), so for such a write the
 * pipe's error is kept on the request (`heldValidationError`) and the value passed on as it came; the
 * handler never runs with it: IdempotentWrites throws the held error once the key has had its say
 * (`keyed`, `run`). Any other request gets the pipe's answer as it is, and so does every request of an
 * app whose handlers were not wrapped (RouteTransactions.wrapped): there nothing would throw it later.
 */
export class HeldValidation implements PipeTransform {
  /** `routes.wrapped`: whether every handler runs through IdempotentWrites; until then nothing is held. */
  constructor(
    private readonly pipe: PipeTransform,
    private readonly routes: { readonly wrapped: boolean },
  ) {}

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const request = currentExchange()?.request;
    if (request === undefined || !this.routes.wrapped || !carriesKey(request))
      return this.pipe.transform(value, metadata);
    const hold = (error: unknown) => {
      // The first refusal, as Nest would have thrown it: the parameters are validated in order.
      request.heldValidationError ??= error;
      return value;
    };
    try {
      return Promise.resolve(this.pipe.transform(value, metadata)).catch(hold);
    } catch (error) {
      return hold(error);
    }
  }
}
