import { Injectable, SetMetadata, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { ApiError, type Role } from '@app/core';

const ROLES_KEY = 'storefront:roles';

/** Only these roles may call the route (403 for the others). */
export const Roles = (...roles: Role[]) => SetMetadata(ROLES_KEY, roles);

@Injectable()
export class RolesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const roles = this.reflector.getAllAndOverride<Role[] | undefined>(ROLES_KEY, [context.getHandler(), context.getClass()]);
    if (!roles) return true;
    const principal = context.switchToHttp().getRequest<FastifyRequest>().principal;
    if (principal?.kind === 'user' && roles.includes(principal.role)) return true;
    throw ApiError.forbidden(`Only ${roles.join(', ')} accounts may do this`);
  }
}
