import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { StoreAccess } from './store-access.js';

/** The caller's access to the route's store, as StoreAccessGuard resolved it (routes marked @StoreScoped only). */
export const CurrentStoreAccess = createParamDecorator((_: unknown, ctx: ExecutionContext): StoreAccess => {
  const access = ctx.switchToHttp().getRequest<FastifyRequest>().storeAccess;
  if (!access) throw new Error('CurrentStoreAccess used on a route without @StoreScoped');
  return access;
});
