import { createHash } from 'node:crypto';
import {
  applyDecorators,
  Injectable,
  UseInterceptors,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { catchError, from, mergeMap, of, throwError, type Observable } from 'rxjs';
import { callerIdOf } from '../auth-context/principal.js';
import { ApiError } from '../errors/api-error.js';
import { ApiErrorResponse } from '../openapi/api-responses.js';
import { IDEMPOTENCY_TTL_HOURS, IdempotencyStore, type KeptAnswer } from './idempotency.store.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
/** The headers of an answer that describe it, kept with it and sent again; the rest are set on every answer. */
const KEPT_HEADERS = ['content-type', 'content-language', 'content-disposition', 'location'];
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** JSON with object keys sorted, so the same body always gives the same fingerprint. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function readKey(request: FastifyRequest): string | null {
  const raw = request.headers[IDEMPOTENCY_HEADER];
  if (raw === undefined) return null;
  const key = Array.isArray(raw) ? null : raw;
  // Visible ASCII and spaces only: a key is an opaque token the client chose (a UUID, say).
  if (key === null || key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH || !/^[\x20-\x7e]+$/.test(key)) {
    throw ApiError.validation([
      {
        field: 'Idempotency-Key',
        message: `Idempotency-Key must be one value of 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters`,
      },
    ]);
  }
  return key;
}

/**
 * Serialises the route's answer here, as Fastify would (the route's serializer), so that the bytes
 * kept are the bytes sent: the first answer and every replay go out as this one buffer.
 */
function keep(reply: FastifyReply, response: unknown): KeptAnswer {
  if (response !== undefined && !reply.hasHeader('content-type')) void reply.header('content-type', JSON_CONTENT_TYPE);
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = reply.getHeader(name);
    if (value !== undefined) headers[name] = String(value);
  }
  const body = response === undefined ? Buffer.alloc(0) : Buffer.from(reply.serialize(response) as string, 'utf8');
  return { status: reply.statusCode, headers, body };
}

function replay(reply: FastifyReply, answer: KeptAnswer): Buffer {
  void reply.code(answer.status);
  for (const [name, value] of Object.entries(answer.headers)) void reply.header(name, value);
  void reply.header('Idempotent-Replayed', 'true');
  return answer.body;
}

/**
 * Makes a POST safe to retry: the first successful answer to a user's `Idempotency-Key` is kept
 * 24 hours and answered again, the same status, headers and body bytes (plus `Idempotent-Replayed:
 * true`), instead of running the route a second time. A failed request keeps nothing, so the same key may be retried. The same key with
 * another route or body → 422; while the first request still runs → 409.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(private readonly store: IdempotencyStore) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const key = readKey(request);
    if (key === null) return next.handle();
    // The caller: a user, or a store key (its keys are kept under the key's id).
    const userId = callerIdOf(request.principal);
    const route = `${request.method} ${request.routeOptions.url ?? request.url.split('?')[0]}`;
    const fingerprint = createHash('sha256')
      .update(canonicalJson(request.body ?? null))
      .digest('hex');
    return from(this.store.claim(userId, key, route, fingerprint)).pipe(
      mergeMap((claim) => {
        switch (claim.kind) {
          case 'replay':
            return of(replay(reply, claim.answer));
          case 'mismatch':
            throw ApiError.unprocessable('This Idempotency-Key was already used for a different request; use a new key for a new request');
          case 'in_progress':
            throw ApiError.conflict('A request with this Idempotency-Key is still being processed; retry once it has finished');
          case 'claimed':
            return next.handle().pipe(
              mergeMap(async (response) => {
                const answer = keep(reply, response);
                await this.store.complete(userId, key, answer);
                return answer.body;
              }),
              catchError((error: unknown) => from(this.store.release(userId, key)).pipe(mergeMap(() => throwError(() => error)))),
            );
        }
      }),
    );
  }
}

/** Accepts an `Idempotency-Key` header on the route. */
export const Idempotent = () =>
  applyDecorators(
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        `Optional, at most ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters. The same key from the same user within ` +
        `${IDEMPOTENCY_TTL_HOURS} h answers the first successful response again (header \`Idempotent-Replayed: true\`) ` +
        'without charging or publishing twice. A failed request keeps nothing, so its key may be retried. ' +
        'The key reused with another route or body → 422 UNPROCESSABLE; while the first request runs → 409 CONFLICT.',
    }),
    ApiErrorResponse(409, 'A request with the same Idempotency-Key is still being processed', {
      code: 'CONFLICT',
      message: 'A request with this Idempotency-Key is still being processed; retry once it has finished',
    }),
  );
