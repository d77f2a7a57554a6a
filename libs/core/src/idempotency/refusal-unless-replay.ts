import type { FastifyRequest } from 'fastify';
import type { ApiError } from '../errors/api-error.js';
import { IDEMPOTENCY_HEADER, isIdempotentOperation } from './idempotency.openapi.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** A guard's 404, held back so that a DELETE's retry may replay (see `refuseUnlessReplay`). */
    refusalUnlessReplay?: ApiError;
  }
}

/**
 * For a guard that cannot find the record a request names: a retried DELETE finds its record gone
 * because its first call deleted it, and must get that call's kept answer again rather than 404. So
 * for a DELETE under /functions/v1 that carries an `Idempotency-Key`, the 404 is held back and this
 * returns true (let the request through): IdempotentWrites replays the caller's kept answer
 * to this key, route and body if there is one, and otherwise throws `refusal`; the route never runs.
 * Returns false (throw `refusal` now) for any other request.
 */
export function refuseUnlessReplay(request: FastifyRequest, refusal: ApiError): boolean {
  if (request.method !== 'DELETE' || request.headers[IDEMPOTENCY_HEADER] === undefined) return false;
  if (!isIdempotentOperation(request.method, request.url.split('?')[0])) return false;
  request.refusalUnlessReplay = refusal;
  return true;
}
