import type { FastifyInstance, FastifyRequest } from 'fastify';
import { FUNCTIONS_PREFIX } from './error-body.js';
import { ApiError } from './api-error.js';

/** The methods whose body Fastify reads; a GET or HEAD body is never parsed, so never refused. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Whether the request carries body bytes: a chunked body, or a Content-Length other than 0. */
function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length.trim() !== '0');
}

/**
 * Whether `contentType` names JSON as the store functions take it: the media type `application/json`
 * (any case), with no parameter but an optional UTF-8 charset (JSON is UTF-8, RFC 8259). Other JSON
 * media types (`application/merge-patch+json`, `application/problem+json`) are not taken: a PATCH
 * here replaces the fields it names, which is not merge-patch's meaning of `null`.
 */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const [type, ...parameters] = contentType.split(';');
  if (type!.trim().toLowerCase() !== 'application/json') return false;
  return parameters.every((parameter) => {
    const [name, value = ''] = parameter.split('=', 2);
    if (name!.trim() === '' && value === '') return true;
    return (
      name!.trim().toLowerCase() === 'charset' &&
      ['utf-8', 'utf8'].includes(
        value
          .trim()
          .replace(/^"(.*)"$/, '$1')
          .toLowerCase(),
      )
    );
  });
}

/**
 * The store functions take JSON bodies only. A request under /functions/v1 whose body is anything
 * else (a form, text, multipart, or no Content-Type at all) is refused with 415 UNSUPPORTED_MEDIA_TYPE
 * as it arrives, before its body is read, so nothing runs. A request without a body (a DELETE, a POST
 * that takes none) passes whatever its Content-Type. /auth/v1 keeps the parsers it had: GoTrue clients
 * send JSON, and what they may send besides is GoTrue's business, not this contract's.
 */
export function registerJsonOnlyBodies(fastify: FastifyInstance): void {
  // A callback hook, not an async one: it runs on every request, and most pass at the first check.
  fastify.addHook('onRequest', (request, _reply, done) => {
    if (!BODY_METHODS.has(request.method) || !request.url.startsWith(`${FUNCTIONS_PREFIX}/`)) return done();
    if (!hasBody(request) || isJsonMediaType(request.headers['content-type'])) return done();
    done(ApiError.unsupportedMediaType());
  });
}
