import { Injectable, SetMetadata, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { ApiError, MemoisedReflector, type Role } from '@app/core';

const ROLES_KEY = 'storefront:roles';

interface RoleRule {
  roles: Role[];
  /** The 403's message; by default it names the roles allowed. */
  message?: string;
}

/**
 * Only these roles may call the route (or every route of the controller); the others get 403.
 * A last argument `{ message }` words the refusal for the route.
 * The role is the one the database holds now (read by the JWT strategy), never the token's claim.
 */
export const Roles = (...args: [Role, ...Array<Role | { message: string }>]) => {
  const roles = args.filter((arg): arg is Role => typeof arg === 'string');
  const message = args.find((arg): arg is { message: string } => typeof arg === 'object')?.message;
  return SetMetadata(ROLES_KEY, { roles, message } satisfies RoleRule);
};

/** Global: enforces @Roles after the caller is known. Routes without @Roles pass. */
@Injectable()
export class RolesGuard implements CanActivate {
  /** The routes' @Roles, read once per handler and class. */
  private readonly reflector: Reflector;

  constructor(reflector: Reflector) {
    this.reflector = new MemoisedReflector(reflector);
  }

  canActivate(context: ExecutionContext): boolean {
    const rule = this.reflector.getAllAndOverride<RoleRule | undefined>(ROLES_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!rule) return true;
    const principal = context.switchToHttp().getRequest<FastifyRequest>().principal;
    if (principal?.kind === 'user' && rule.roles.includes(principal.role)) return true;
    throw ApiError.forbidden(rule.message ?? `Only ${rule.roles.join(', ')} accounts may do this`);
  }
}
