import type { OpenAPIObject } from '@nestjs/swagger';
import { FUNCTIONS_PREFIX } from '../errors/error-body.js';
import { IDEMPOTENCY_TTL_HOURS } from './idempotency.store.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
type OperationObject = NonNullable<OpenAPIObject['paths'][string]['post']>;
type ResponseObject = Extract<OperationObject['responses'][string], { description: string }>;

const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * Whether a request's route takes an `Idempotency-Key`: every write (POST, PUT, PATCH, DELETE) under
 * /functions/v1. IdempotentWrites and the OpenAPI document both ask this, so they cannot disagree.
 */
export function isIdempotentOperation(method: string, path: string): boolean {
  return (WRITE_METHODS as readonly string[]).includes(method.toUpperCase()) && path.startsWith(`${FUNCTIONS_PREFIX}/`);
}

const HEADER_DESCRIPTION =
  `Optional, 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters (a UUID, say). The same key from the same ` +
  `caller within ${IDEMPOTENCY_TTL_HOURS} h answers the first successful response again, byte for byte (same status, ` +
  'body and `Location`; header `Idempotent-Replayed: true`), without acting a second time. A failed request keeps ' +
  'nothing, so its key may be retried. The key reused with another route (method and path) or body → 422 ' +
  'UNPROCESSABLE; a kept answer that cannot be opened (it is never replayed) → 422 UNPROCESSABLE; while the first ' +
  'request still runs → 409 CONFLICT.';

const IN_PROGRESS = 'A request with the same Idempotency-Key is still being processed';
const STILL_RUNNING = 'A request with this Idempotency-Key is still being processed';
export const IN_PROGRESS_MESSAGE = `${STILL_RUNNING}; retry once it has finished`;
const REUSED = 'The Idempotency-Key was already used with another route or body';
const USED = 'This Idempotency-Key was already used for a different request';
export const REUSED_MESSAGE = `${USED}; use a new key for a new request`;
export const UNREPLAYABLE_MESSAGE = "This Idempotency-Key's kept answer cannot be replayed; use a new key";
const ENVELOPE = { $ref: '#/components/schemas/ErrorEnvelope' };

function errorAnswer(description: string, code: string, message: string): ResponseObject {
  const example = { success: false, error: { code, message } };
  return { description, content: { 'application/json': { schema: ENVELOPE, example } } };
}

/** Adds `description` to an error answer the operation documents already, or documents it. */
function addAnswer(operation: OperationObject, status: string, description: string, fallback: ResponseObject): void {
  const existing = operation.responses[status] as ResponseObject | undefined;
  if (!existing) {
    operation.responses[status] = fallback;
  } else if (!existing.description.includes(description)) {
    existing.description = `${existing.description}; or: ${description}`;
  }
}

/**
 * Declares the `Idempotency-Key` header on every operation `isIdempotentOperation` covers, with its
 * 409 and 422 answers and the `Idempotent-Replayed` header of its successful answers.
 */
export function declareIdempotency(document: OpenAPIObject): void {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of ['post', 'put', 'patch', 'delete'] as const) {
      const operation = item[method];
      if (!operation || !isIdempotentOperation(method, path)) continue;
      const parameters = (operation.parameters ?? []).filter((p) => !('name' in p && p.name === 'Idempotency-Key'));
      parameters.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description: HEADER_DESCRIPTION,
        schema: { type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH },
      });
      operation.parameters = parameters;
      addAnswer(operation, '409', IN_PROGRESS, errorAnswer(IN_PROGRESS, 'CONFLICT', IN_PROGRESS_MESSAGE));
      addAnswer(operation, '422', REUSED, errorAnswer(REUSED, 'UNPROCESSABLE', REUSED_MESSAGE));
      for (const [status, answer] of Object.entries(operation.responses)) {
        if (!/^2/.test(status)) continue;
        const response = answer as ResponseObject;
        response.headers = {
          ...response.headers,
          'Idempotent-Replayed': {
            description: '`true` when this is the kept answer to an earlier request with the same `Idempotency-Key`',
            schema: { type: 'string', enum: ['true'] },
          },
        };
      }
    }
  }
}
