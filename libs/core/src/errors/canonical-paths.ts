import type { FastifyInstance } from 'fastify';
import { AUTH_PREFIX, errorBody, FUNCTIONS_PREFIX } from './error-body.js';

/** The prefixes whose routes other hooks, guards and interceptors recognise by the raw request target. */
const PREFIXES = [`${FUNCTIONS_PREFIX}/`, `${AUTH_PREFIX}/`];

export const NON_CANONICAL_PATH_MESSAGE =
  'The request target must be a path that starts with the API prefix as it is spelled (no percent-encoding of it, ' +
  'no absolute URL, no dot segments)';

/**
 * The router matches a route on the decoded path, while the checks that decide how a request is handled
 * (JSON bodies only, Idempotency-Key, the request transaction, rate-limit headers, the error shape) read
 * the raw request target: `/%66unctions/v1/...` or `POST http://host/functions/v1/...` would reach a
 * route and skip them all. So a request whose route lies under /functions/v1 or /auth/v1 while its raw
 * target does not start with that same prefix is refused as it arrives, before anything else runs:
 * 400 VALIDATION_FAILED, in the envelope under /functions/v1 and in GoTrue's shape under /auth/v1.
 * Percent-encoding later in the path is left alone: ids are compared by value.
 */
export function registerCanonicalPrefixes(fastify: FastifyInstance): void {
  // A callback hook, not an async one: it runs on every request, and nearly all pass at once.
  fastify.addHook('onRequest', (request, reply, done) => {
    const route = request.routeOptions.url;
    if (route === undefined) return done();
    const prefix = PREFIXES.find((candidate) => route.startsWith(candidate));
    if (prefix === undefined || request.url.startsWith(prefix)) return done();
    // Answered here: the request goes no further (done is not called).
    void reply
      .status(400)
      .type('application/json; charset=utf-8')
      .send(
        errorBody(prefix, {
          status: 400,
          code: prefix === `${AUTH_PREFIX}/` ? 'validation_failed' : 'VALIDATION_FAILED',
          message: NON_CANONICAL_PATH_MESSAGE,
          details: [{ field: 'path', message: NON_CANONICAL_PATH_MESSAGE }],
        }),
      );
  });
}
