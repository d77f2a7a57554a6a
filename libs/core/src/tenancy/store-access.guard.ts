import {
  applyDecorators,
  Injectable,
  SetMetadata,
  UseGuards,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiBearerAuth } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import { refuseUnlessReplay } from '../idempotency/refusal-unless-replay.js';
import { ApiErrorResponse } from '../openapi/api-responses.js';
import { requireRequestPrincipal } from './principal.js';
import { PERMISSIONS, type Permission, type StoreAccess } from './store-access.js';
import { locateStore, STORE_LOCATION_KEY, type StoreLocation } from './store-location.js';
import { storeResource } from './store-resources.js';
import { MemoisedReflector } from './memoised-reflector.js';

export interface StoreAccessRule extends StoreLocation {
  /**
   * What the route needs: `read` (anyone with access to the store, customers included unless
   * `customers: false`), a team-member permission, or `manage` (owners and admins only).
   */
  need: 'read' | 'manage' | Permission;
  customers?: boolean;
  /** A customer may also act on a customer or order record of its own (its customer record, its order). */
  self?: boolean;
  /**
   * `false`: store keys may not call the route (403), although it needs no more than a permission: it
   * is a signed-in person's act (a social connect is the person's consent in a browser). Routes that
   * need `manage`, and routes that are not store-scoped, refuse keys anyway (JwtAuthGuard).
   */
  storeKeys?: false;
}

/**
 * Judges the caller's access to the route's store: 404 when the store (or record) is not theirs to
 * see (never revealing whether it exists), 403 when they see it but may not do this. The facts come
 * from the JWT strategy's one lookup (`request.callerFacts`): this guard does not query.
 */
@Injectable()
export class StoreAccessGuard implements CanActivate {
  /** The routes' rules, read once per handler. */
  private readonly metadata: Reflector;

  constructor(reflector: Reflector) {
    this.metadata = new MemoisedReflector(reflector);
  }

  canActivate(context: ExecutionContext): boolean {
    const rule = this.metadata.get<StoreAccessRule>(STORE_LOCATION_KEY, context.getHandler());
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const principal = requireRequestPrincipal(request.principal);
    const located = locateStore(rule, request);
    if (!located.ok) throw ApiError.validation([{ field: located.key, message: located.message }]);
    const { reference } = located;
    const facts = request.callerFacts;
    if (reference.onlyStore && facts?.storeCount !== 1) {
      throw ApiError.validation([
        { field: located.key, message: `${located.key} is required when the caller does not have exactly one store` },
      ]);
    }
    const resource = reference.resource;
    // Whoever cannot see the store learns nothing about the record either. A retried DELETE whose first
    // call deleted the record may still get that call's kept answer (the route itself never runs).
    if (!facts?.relation || !facts.storeId) {
      const refusal = ApiError.notFound(resource ? storeResource(resource).name : 'Store');
      if (refuseUnlessReplay(request, refusal)) return true;
      throw refusal;
    }
    const access: StoreAccess = {
      storeId: facts.storeId,
      relation: facts.relation,
      permissions:
        facts.relation === 'member'
          ? ((facts.permissions ?? []) as Permission[])
          : facts.relation === 'customer'
            ? []
            : PERMISSIONS,
    };
    if (access.relation === 'customer') {
      const ownRecord = rule.self === true && principal.kind === 'user' && facts.recordOwner === principal.userId;
      if (resource && resource !== 'product' && !ownRecord) throw ApiError.notFound(storeResource(resource).name);
      if (!ownRecord && (rule.need !== 'read' || rule.customers === false))
        throw ApiError.forbidden('Customers may not do this');
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

/** The guard's 403 message for a rule, as the route's OpenAPI example. */
function refusalExample(rule: StoreAccessRule): string {
  if (rule.need === 'manage') return 'Only the store owner may do this';
  if (rule.need === 'read') return 'Customers may not do this';
  return `This needs the "${rule.need}" permission on the store`;
}

/** The guard's 404 message for a rule, as the route's OpenAPI example. */
function notFoundExample(rule: StoreAccessRule): string {
  if (rule.from === 'param' || rule.from === 'body' || rule.from === 'query') return 'Store not found';
  return `${storeResource(rule.from).name} not found`;
}

/**
 * Guards a route by the caller's access to the store it names (see StoreAccessRule), and documents
 * the guard's 404 and, where the rule can refuse a caller who sees the store, its 403; and the store
 * key scheme (`storeKey`) where keys may call the route.
 */
export const StoreScoped = (rule: StoreAccessRule) =>
  applyDecorators(
    SetMetadata(STORE_LOCATION_KEY, rule),
    UseGuards(StoreAccessGuard),
    // A store key is accepted beside the user's token (JwtAuthGuard decides by the same rule).
    ...(rule.need !== 'manage' && rule.storeKeys !== false ? [ApiBearerAuth('storeKey')] : []),
    ApiErrorResponse(404, "No such store, or another tenant's", {
      code: 'NOT_FOUND',
      message: notFoundExample(rule),
    }),
    ...(rule.need === 'read' && rule.customers !== false
      ? []
      : [
          ApiErrorResponse(403, 'The caller sees the store but may not do this', {
            code: 'FORBIDDEN',
            message: refusalExample(rule),
          }),
        ]),
  );
