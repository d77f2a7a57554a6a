import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import { idempotencyCaller } from './idempotency-caller.js';
import {
  IDEMPOTENCY_HEADER,
  IN_PROGRESS_MESSAGE,
  isIdempotentOperation,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  REUSED_MESSAGE,
  UNREPLAYABLE_MESSAGE,
} from './idempotency.openapi.js';
import { IdempotencyStore, type KeptAnswer } from './idempotency.store.js';

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

/** A write that came with an `Idempotency-Key` its caller may use: what its claim and kept answer are keyed by. */
export interface KeyedWrite {
  caller: string;
  key: string;
  /** The path with its ids (and the query, if any): the same key on another store's route is another request. */
  route: string;
  fingerprint: string;
}

/**
 * Makes every write of /functions/v1 (POST, PUT, PATCH, DELETE: `isIdempotentOperation`) safe to retry,
 * for the whole app, inside the request transaction: RouteTransactions, which wraps every route's handler,
 * calls it (`keyed`, then `run`) in that transaction. The first successful answer to a
 * caller's `Idempotency-Key` is kept 24 hours and answered again, the same status, headers and body
 * bytes (plus `Idempotent-Replayed: true`), instead of running the route a second time. A failed
 * request keeps nothing, so the same key may be retried. The same key with another route (method and
 * path, ids included) or body → 422, and so does a kept answer that does not open (never replayed,
 * see IdempotencyStore); while the first request still runs → 409.
 *
 * In a route's request transaction the claim, the route's change and the kept answer commit together
 * (see IdempotencyStore), so a crash or a failed commit leaves neither the change nor the key. A route
 * that commits in steps (`@OwnTransactions`) claims first, committed at once, and keeps the answer after
 * its last step: a process that dies between the two leaves a pending claim, which answers 409 for 5
 * minutes and is then taken over, so such a route may run twice in that case.
 */
@Injectable()
export class IdempotentWrites {
  constructor(private readonly store: IdempotencyStore) {}

  /**
   * The request's key, if it is a write that has one to keep its answer under; null when there is nothing
   * to do (a read, most requests, leaves at once before any work on the URL). Throws the 400 of a malformed
   * key, and a guard's held-back 404 (`refuseUnlessReplay`) or the pipe's held-back refusal of the input
   * (HeldValidation) when there is no key to replay from.
   */
  keyed(request: FastifyRequest): KeyedWrite | null {
    if (request.method === 'GET' || !isIdempotentOperation(request.method, request.url.split('?')[0]!)) return null;
    const key = readKey(request);
    const caller = idempotencyCaller(request.principal);
    if (key === null || caller === null) {
      if (request.refusalUnlessReplay) throw request.refusalUnlessReplay;
      if (request.heldValidationError !== undefined) throw request.heldValidationError;
      return null;
    }
    const fingerprint = createHash('sha256')
      .update(canonicalJson(request.body ?? null))
      .digest('hex');
    return { caller, key, route: `${request.method} ${request.url}`, fingerprint };
  }

  /** The answer to a keyed write: the kept one again, or the route's (`handle`), kept; or the claim's refusal. */
  async run(write: KeyedWrite, request: FastifyRequest, reply: FastifyReply, handle: () => unknown): Promise<unknown> {
    const { caller, key, route, fingerprint } = write;
    const claim = await this.store.claim(caller, key, route, fingerprint);
    // A guard's held-back 404 (refuseUnlessReplay): only a kept answer may be given, nothing may run.
    const refusal = request.refusalUnlessReplay;
    if (refusal && claim.kind !== 'replay') {
      if (claim.kind === 'claimed') await this.store.release(caller, key, claim);
      throw refusal;
    }
    switch (claim.kind) {
      case 'replay':
        return replay(reply, claim.answer);
      case 'mismatch':
        throw ApiError.unprocessable(REUSED_MESSAGE);
      case 'unreplayable':
        throw ApiError.unprocessable(UNREPLAYABLE_MESSAGE);
      case 'in_progress':
        throw ApiError.conflict(IN_PROGRESS_MESSAGE);
      case 'claimed':
        // The input the app's pipe refused (HeldValidation): nothing runs, the key stays free.
        if (request.heldValidationError !== undefined) {
          await this.store.release(caller, key, claim);
          throw request.heldValidationError;
        }
        try {
          const answer = keep(reply, await handle());
          await this.store.complete(write, answer);
          return answer.body;
        } catch (error) {
          // Once the claim is released (a release that fails throws its own error instead).
          await this.store.release(caller, key, claim);
          throw error;
        }
    }
  }
}
