import { Injectable, SetMetadata, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { from, type Observable } from 'rxjs';
import { answerOf, IdempotentWrites } from '../idempotency/idempotent-writes.js';
import { FUNCTIONS_PREFIX } from '../errors/error-body.js';
import { TenantDb } from '../tenancy/db-handles.js';

const OWN_TRANSACTIONS = 'storefront:own-transactions';

/**
 * The route commits in steps of its own instead of one request transaction: an AI call commits
 * its charge before the provider is asked and refunds after, which one transaction cannot do.
 * Such a handler opens its own transactions (`TenantDb.transaction`), each bound to the user.
 */
export const OwnTransactions = () => SetMetadata(OWN_TRANSACTIONS, true);

/**
 * Whether a signed-in user's request runs its handler in one request transaction: a /functions/v1
 * route that does not commit in steps of its own. The JWT strategy opens that transaction together with
 * the caller's lookup; this interceptor hands it to the handler.
 */
export function runsInRequestTransaction(
  reflector: Reflector,
  context: ExecutionContext,
  request: FastifyRequest,
): boolean {
  return request.url.startsWith(FUNCTIONS_PREFIX) && !reflector.get<boolean>(OWN_TRANSACTIONS, context.getHandler());
}

/**
 * The app's one interceptor, for what must wrap the handler. One transaction per /functions/v1 request,
 * bound to the signed-in user's session for row-level security (opened and bound by the JWT strategy,
 * adopted by the scoped adapter; see tenancy/scoped-transaction-adapter.ts and request-transaction.ts).
 * The handler's writes commit together when it returns and roll back together when it throws. Inside
 * that transaction, a write's `Idempotency-Key` (IdempotentWrites): its claim and kept answer commit or
 * roll back with the route's change.
 *
 * One interceptor rather than two, and plain promises between them: Nest wraps every interceptor it
 * calls in Observables of its own on every request, and a read needs neither the idempotency step nor
 * more than one promise-to-Observable hop.
 */
@Injectable()
export class TenantTransactionInterceptor implements NestInterceptor {
  constructor(
    private readonly db: TenantDb,
    private readonly reflector: Reflector,
    private readonly idempotency: IdempotentWrites,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const kind = request.principal?.kind;
    const bound = kind === 'user' || kind === 'api_key';
    if (!bound || !runsInRequestTransaction(this.reflector, context, request)) {
      // A route that commits in steps claims its key in a transaction of its own (IdempotencyStore).
      const write = this.idempotency.keyed(request);
      return write ? from(this.idempotency.run(write, request, http.getResponse(), next)) : next.handle();
    }
    return from(
      this.db.transaction(async () => {
        // In the transaction, so that a refused key rolls it back like any other error of the handler.
        const write = this.idempotency.keyed(request);
        return write ? this.idempotency.run(write, request, http.getResponse(), next) : answerOf(next);
      }),
    );
  }
}
