import { applyDecorators, Injectable, SetMetadata, UseGuards, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiForbiddenResponse, ApiNotFoundResponse } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { isUUID } from 'class-validator';
import { ApiError, requireUser } from '@app/core';
import type { Permission } from './store-access.js';
import { StoreAccessService, type StoreResource } from './store-access.service.js';

export interface StoreAccessRule {
  /**
   * Where the store id is: a path parameter, a body field or a query parameter, by name; or the
   * store of the product, customer or order whose id is the path parameter `key`.
   */
  from: 'param' | 'body' | 'query' | StoreResource;
  key?: string;
  /** For a record (`from: 'product'`…): whether its id is a path parameter (default) or a body field. */
  in?: 'param' | 'body';
  /**
   * With `from: 'body'` or `'query'`: the store id may be left out when the caller has exactly one
   * store (owned, joined or its customer store); with none or several it is required (400).
   */
  optional?: boolean;
  /**
   * What the route needs: `read` (anyone with access to the store, customers included unless
   * `customers: false`), a team-member permission, or `manage` (owners and admins only).
   */
  need: 'read' | 'manage' | Permission;
  customers?: boolean;
  /** A customer may also act on a customer or order record of its own (its customer record, its order). */
  self?: boolean;
}

const RESOURCE_KEYS: Record<StoreResource, string> = {
  product: 'product_id',
  customer: 'customer_id',
  order: 'order_id',
  webhook: 'webhook_id',
  social_account: 'account_id',
  social_post: 'post_id',
};
const RESOURCE_NAMES: Record<StoreResource, string> = {
  product: 'Product',
  customer: 'Customer',
  order: 'Order',
  webhook: 'Webhook',
  social_account: 'Social account',
  social_post: 'Scheduled post',
};

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
    const resource = rule.from === 'param' || rule.from === 'body' || rule.from === 'query' ? null : rule.from;
    const key = rule.key ?? (resource ? RESOURCE_KEYS[resource] : 'store_id');
    const place = resource ? (rule.in ?? 'param') : rule.from;
    const source = (place === 'body' ? request.body : place === 'query' ? request.query : request.params) as
      Record<string, unknown> | undefined;
    let id = source?.[key];
    if (id === undefined && rule.optional && !resource) {
      id = await this.access.onlyStoreOf(principal.userId);
      if (id === null) {
        throw ApiError.validation([{ field: key, message: `${key} is required when the caller does not have exactly one store` }]);
      }
    }
    if (typeof id !== 'string' || !isUUID(id)) {
      throw ApiError.validation([{ field: key, message: `${key} must be a UUID` }]);
    }
    const located = resource ? await this.access.locate(resource, id) : { storeId: id, ownerUserId: null };
    if (!located) throw ApiError.notFound(RESOURCE_NAMES[resource!]);
    const storeId = located.storeId;
    const access = await this.access.resolve(principal, storeId);
    // Whoever cannot see the store learns nothing about the record either.
    if (!access) throw ApiError.notFound(resource ? RESOURCE_NAMES[resource] : 'Store');
    if (access.relation === 'customer') {
      const ownRecord = rule.self === true && located.ownerUserId === principal.userId;
      if (resource && resource !== 'product' && !ownRecord) throw ApiError.notFound(RESOURCE_NAMES[resource]);
      if (!ownRecord && (rule.need !== 'read' || rule.customers === false)) throw ApiError.forbidden('Customers may not do this');
      request.storeAccess = access;
      return true;
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
