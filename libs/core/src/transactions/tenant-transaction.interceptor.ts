import { Injectable, SetMetadata, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import type { FastifyRequest } from 'fastify';
import { from, lastValueFrom, type Observable } from 'rxjs';

export const FUNCTIONS_PREFIX = '/functions/v1';

const OWN_TRANSACTIONS = 'storefront:own-transactions';

/**
 * The route commits in steps of its own instead of one request transaction: an AI call commits
 * its charge before the provider is asked and refunds after, which one transaction cannot do.
 * Such a handler opens its own transactions (`txHost.withTransaction`), each bound to the user.
 */
export const OwnTransactions = () => SetMetadata(OWN_TRANSACTIONS, true);

/**
 * One transaction per /functions/v1 request, bound to the signed-in user's session for row-level
 * security (the scoped adapter binds every request transaction; see db-scope.ts). The handler's
 * writes commit together when it returns and roll back together when it throws.
 */
@Injectable()
export class TenantTransactionInterceptor implements NestInterceptor {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const principal = request.principal;
    if (principal?.kind !== 'user' || !request.url.startsWith(FUNCTIONS_PREFIX)) return next.handle();
    if (this.reflector.get<boolean>(OWN_TRANSACTIONS, context.getHandler())) return next.handle();
    return from(this.txHost.withTransaction(() => lastValueFrom(next.handle(), { defaultValue: undefined })));
  }
}
