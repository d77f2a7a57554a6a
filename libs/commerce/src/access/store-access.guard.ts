import { applyDecorators, Injectable, SetMetadata, UseGuards, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiForbiddenResponse, ApiNotFoundResponse } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { isUUID } from 'class-validator';
import { ApiError, requireUser } from '@app/core';
import type { Permission } from './store-access.js';
import { StoreAccessService } from './store-access.service.js';

export interface StoreAccessRule {
  /** Where the store id is: a path parameter, a body field or a query parameter, by name. */
  from: 'param' | 'body' | 'query';
  key?: string;
  /**
   * What the route needs: `read` (anyone with access to the store, customers included unless
   * `customers: false`), a team-member permission, or `manage` (owners and admins only).
   */
  need: 'read' | 'manage' | Permission;
  customers?: boolean;
}

const RULE_KEY = 'storefront:store-access';

/**
 * Resolves the route's store and checks the caller's access: 404 when the store is not theirs to see
 * (never revealing whether it exists), 403 when they see it but may not do this.
 */
@Injectable()
export class StoreAccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly access: StoreAccessService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const rule = this.reflector.get<StoreAccessRule>(RULE_KEY, context.getHandler());
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const principal = requireUser(request.principal);
    const key = rule.key ?? 'store_id';
    const source = (rule.from === 'param' ? request.params : rule.from === 'body' ? request.body : request.query) as
      Record<string, unknown> | undefined;
    const storeId = source?.[key];
    if (typeof storeId !== 'string' || !isUUID(storeId)) {
      throw ApiError.validation([{ field: key, message: `${key} must be a UUID` }]);
    }
    const access = await this.access.resolve(principal, storeId);
    if (!access) throw ApiError.notFound('Store');
    if (access.relation === 'customer' && (rule.need !== 'read' || rule.customers === false)) {
      throw ApiError.forbidden('Customers may not do this');
    }
    if (rule.need === 'manage' && access.relation === 'member') {
      throw ApiError.forbidden('Only the store owner may do this');
    }
    if (rule.need !== 'read' && rule.need !== 'manage' && !access.permissions.includes(rule.need)) {
      throw ApiError.forbidden(`This needs the "${rule.need}" permission on the store`);
    }
    request.storeAccess = access;
    return true;
  }
}

/** Guards a route by the caller's access to the store it names (see StoreAccessRule). */
export const StoreScoped = (rule: StoreAccessRule) =>
  applyDecorators(
    SetMetadata(RULE_KEY, rule),
    UseGuards(StoreAccessGuard),
    ApiNotFoundResponse({
      description: "No such store, or another tenant's",
      schema: { example: { success: false, error: { code: 'NOT_FOUND', message: 'Store not found' } } },
    }),
    ApiForbiddenResponse({
      description: 'The caller sees the store but may not do this',
      schema: { example: { success: false, error: { code: 'FORBIDDEN', message: 'Only the store owner may do this' } } },
    }),
  );
