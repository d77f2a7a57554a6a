import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import type { FastifyRequest } from 'fastify';
import { from, lastValueFrom, type Observable } from 'rxjs';
import { enterTenantContext } from '../database/tenant-context.js';

export const FUNCTIONS_PREFIX = '/functions/v1';

/**
 * One transaction per /functions/v1 request, bound to the signed-in user for row-level security.
 * The handler's writes commit together when it returns and roll back together when it throws.
 */
@Injectable()
export class TenantTransactionInterceptor implements NestInterceptor {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const principal = request.principal;
    if (principal?.kind !== 'user' || !request.url.startsWith(FUNCTIONS_PREFIX)) return next.handle();
    return from(
      this.txHost.withTransaction(async () => {
        await enterTenantContext(this.txHost.tx, principal);
        return lastValueFrom(next.handle(), { defaultValue: undefined });
      }),
    );
  }
}
