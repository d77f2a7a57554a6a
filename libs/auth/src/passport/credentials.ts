import type { FastifyRequest } from 'fastify';
import { ApiError, AUTH_PREFIX, GoTrueError, safeEqual } from '@app/core';

/**
 * What a request presents: nothing, the public API key, a store key's secret (a Bearer token that
 * starts with `sk_`), or another Bearer token (a user's access token).
 */
export type Credentials =
  { kind: 'none' } | { kind: 'public_key' } | { kind: 'store_key'; secret: string } | { kind: 'token'; token: string };

/** The prefix of a store key's secret: what tells it from an access token (a JWT starts with `eyJ`). */
export const STORE_KEY_PREFIX = 'sk_';

/** 401 in the route's envelope: GoTrue's `{code, error_code, msg}` under /auth/v1, ours elsewhere. */
export function unauthenticated(request: FastifyRequest, message: string, goTrueCode = 'no_authorization'): Error {
  return request.url.startsWith(AUTH_PREFIX)
    ? new GoTrueError(401, goTrueCode, message)
    : ApiError.unauthenticated(message);
}

/**
 * Reads the `apikey` and `Authorization` headers. A malformed header is refused here, before any
 * strategy runs: an `apikey` that is not the public key, an Authorization header that is not
 * `Bearer <token>`. A Bearer token equal to the public key counts as the key.
 */
export function readCredentials(request: FastifyRequest, publicKey: string): Credentials {
  const apikey = request.headers.apikey;
  if (apikey !== undefined && (typeof apikey !== 'string' || !safeEqual(apikey, publicKey))) {
    throw unauthenticated(request, 'Invalid API key', 'invalid_api_key');
  }
  const authorization = request.headers.authorization;
  if (authorization === undefined) return apikey ? { kind: 'public_key' } : { kind: 'none' };
  const bearer = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];
  if (!bearer) throw unauthenticated(request, 'Authorization header must be "Bearer <token>"', 'bad_jwt');
  if (safeEqual(bearer, publicKey)) return { kind: 'public_key' };
  return bearer.startsWith(STORE_KEY_PREFIX) ? { kind: 'store_key', secret: bearer } : { kind: 'token', token: bearer };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** What the auth guard read from the headers, for the passport strategies (set per request). */
    credentials?: Credentials;
  }
}
