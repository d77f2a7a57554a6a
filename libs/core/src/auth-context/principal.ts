import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiError } from '../errors/api-error.js';

export const ROLES = ['merchant', 'team_member', 'customer', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** A signed-in user, taken from a verified access token. */
export interface UserPrincipal {
  kind: 'user';
  userId: string;
  email: string;
  role: Role;
  sessionId: string;
}

/** A caller that presented only the public API key. */
export interface AnonPrincipal {
  kind: 'anon';
}

export type Principal = UserPrincipal | AnonPrincipal;

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

export const ANON_ONLY_MESSAGE =
  "This function needs a signed-in user's access token (Authorization: Bearer <access_token>); the public API key alone is not enough";

export function requireUser(principal: Principal | undefined): UserPrincipal {
  if (principal?.kind === 'user') return principal;
  throw ApiError.unauthenticated(principal?.kind === 'anon' ? ANON_ONLY_MESSAGE : undefined);
}

/** The signed-in user of the request (the auth guard has already refused anyone else). */
export const CurrentUser = createParamDecorator((_: unknown, ctx: ExecutionContext): UserPrincipal =>
  requireUser(ctx.switchToHttp().getRequest().principal),
);
