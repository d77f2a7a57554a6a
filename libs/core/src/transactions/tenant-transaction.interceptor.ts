import { Injectable, SetMetadata, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { from, lastValueFrom, type Observable } from 'rxjs';
import { TenantDb } from '../tenancy/db-handles.js';

export const FUNCTIONS_PREFIX = '/functions/v1';

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
 * One transaction per /functions/v1 request, bound to the signed-in user's session for row-level
 * security (opened and bound by the JWT strategy, adopted by the scoped adapter; see
 * tenancy/scoped-transaction-adapter.ts and request-transaction.ts). The handler's writes commit together when it
 * returns and roll back together when it throws.
 */
@Injectable()
export class TenantTransactionInterceptor implements NestInterceptor {
  constructor(
    private readonly db: TenantDb,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const kind = request.principal?.kind;
    const bound = kind === 'user' || kind === 'api_key';
    if (!bound || !runsInRequestTransaction(this.reflector, context, request)) return next.handle();
    return from(this.db.transaction(() => lastValueFrom(next.handle(), { defaultValue: undefined })));
  }
}
