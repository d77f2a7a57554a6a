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

/**
 * A merchant's server, authenticated by a store key (`Authorization: Bearer sk_…`): a principal of its
 * own, acting as a team member of one store with the key's permissions, never as a user. Read from
 * the database on every request (a revoked or expired key is refused on the next one).
 */
export interface ApiKeyPrincipal {
  kind: 'api_key';
  keyId: string;
  storeId: string;
  permissions: readonly string[];
}

export type Principal = UserPrincipal | AnonPrincipal | ApiKeyPrincipal;

/** Whoever's database access a request is: a signed-in user, or a store key. */
export type RequestPrincipal = UserPrincipal | ApiKeyPrincipal;

/** Who acted, as the request log and the stored event record name it. */
export function actorOf(principal: Principal | undefined): { type: 'user' | 'api_key'; id: string } | undefined {
  if (principal?.kind === 'user') return { type: 'user', id: principal.userId };
  if (principal?.kind === 'api_key') return { type: 'api_key', id: principal.keyId };
  return undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

export const ANON_ONLY_MESSAGE =
  "This function needs a signed-in user's access token (Authorization: " +
  'Bearer <access_token>); the public API key alone is not enough';

export const STORE_KEY_REFUSED_MESSAGE = 'Store keys may not call this route; it needs a signed-in user';

export function requireUser(principal: Principal | undefined): UserPrincipal {
  if (principal?.kind === 'user') return principal;
  if (principal?.kind === 'api_key') throw ApiError.forbidden(STORE_KEY_REFUSED_MESSAGE);
  throw ApiError.unauthenticated(principal?.kind === 'anon' ? ANON_ONLY_MESSAGE : undefined);
}

/** A signed-in user or a store key (routes a key may call); anyone else is refused as `requireUser` refuses. */
export function requireRequestPrincipal(principal: Principal | undefined): RequestPrincipal {
  if (principal?.kind === 'api_key') return principal;
  return requireUser(principal);
}

/** The signed-in user or store key of the request (routes a store key may call). */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): RequestPrincipal =>
  requireRequestPrincipal(ctx.switchToHttp().getRequest().principal),
);

/** The signed-in user of the request (the auth guard has already refused anyone else). */
export const CurrentUser = createParamDecorator((_: unknown, ctx: ExecutionContext): UserPrincipal =>
  requireUser(ctx.switchToHttp().getRequest().principal),
);
