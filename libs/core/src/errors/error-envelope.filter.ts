import { ArgumentsHost, Catch, HttpException, Logger, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../database/database-unavailable.js';
import { ApiError, type ApiErrorCode } from './api-error.js';
import { DomainError, DomainErrorAnswers } from './domain-error.js';
import { errorBody, isClientStatus, type ErrorDescription } from './error-body.js';
import { GoTrueError } from './gotrue-error.js';

/** Bodies over this size answer 413 PAYLOAD_TOO_LARGE. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/** Fastify's own request errors (raised while reading the body, before any handler), as contract errors. */
const FASTIFY_ERRORS: Record<string, { code: ApiErrorCode; message: (error: Error) => string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'MALFORMED_JSON', message: () => 'Body is not valid JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    code: 'MALFORMED_JSON',
    message: () => 'Body is empty but Content-Type is application/json',
  },
  FST_ERR_CTP_BODY_TOO_LARGE: {
    code: 'PAYLOAD_TOO_LARGE',
    message: () => `Request body is larger than ${BODY_LIMIT_BYTES} bytes (1 MiB)`,
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: () => 'Content-Type must be application/json',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    code: 'VALIDATION_FAILED',
    message: () => 'Content-Length does not match the body',
  },
};

/** How long a client is told to wait (Retry-After, seconds) when the database cannot be reached. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * Turns every exception into the contract's error body; unexpected ones become a bare 500 with no trace.
 * A context's domain error is answered as that context's mapping says (`DomainErrorAnswers`).
 */
@Catch()
export class ErrorEnvelopeFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(private readonly domainErrors: DomainErrorAnswers) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    // A guard refused the request after the JWT strategy opened its transaction: nobody else will close it.
    request.requestTransaction?.abandon();
    if (exception instanceof DomainError) exception = this.domainErrors.answer(exception) ?? exception;
    const databaseDown = !(exception instanceof HttpException) && isDatabaseUnavailable(exception);
    if (databaseDown) {
      // Not a bug: the database is down, restarting or out of connections. One line, no stack.
      this.logger.warn(
        { err: { message: (exception as Error).message }, request_id: request.id, path: request.url.split('?')[0] },
        'database unreachable; answered 503',
      );
      exception = ApiError.serviceUnavailable(
        'The service is briefly unavailable; retry in a few seconds',
        DATABASE_RETRY_AFTER_SECONDS,
      );
    }
    const { description, headers } = this.describe(exception, request);
    // A dependency that is down is reported where it is detected (above, the readiness check), not as a bug.
    const expected = exception instanceof ApiError && exception.code === 'SERVICE_UNAVAILABLE';
    if (description.status >= 500 && !expected) {
      // Message and stack only: a query error's parameters may hold secrets.
      const error =
        exception instanceof Error
          ? { type: exception.name, message: exception.message, stack: exception.stack }
          : { message: String(exception) };
      this.logger.error({ err: error, request_id: request.id, path: request.url.split('?')[0] }, 'request failed');
    }
    for (const [name, value] of Object.entries(headers)) reply.header(name, value);
    // JSON even where the route set another type (an HTML page that failed before its body was made).
    void reply
      .status(description.status)
      .type('application/json; charset=utf-8')
      .send(errorBody(request.url, description));
  }

  private describe(
    exception: unknown,
    request: FastifyRequest,
  ): { description: ErrorDescription; headers: Record<string, string> } {
    if (exception instanceof ApiError) {
      return {
        description: {
          status: exception.getStatus(),
          code: exception.code,
          message: exception.message,
          details: exception.details,
        },
        headers: exception.headers,
      };
    }
    if (exception instanceof GoTrueError) {
      return {
        description: { status: exception.getStatus(), code: exception.errorCode, message: exception.message },
        headers: exception.headers,
      };
    }
    // The Fastify adapter wraps Fastify's request errors in an HttpException whose cause is the original.
    const raw = (exception instanceof HttpException ? exception.cause : exception) as
      { code?: string; statusCode?: number } | undefined;
    const fastifyError = FASTIFY_ERRORS[raw?.code ?? ''];
    if (fastifyError && typeof raw?.statusCode === 'number') {
      return {
        description: {
          status: raw.statusCode,
          code: fastifyError.code,
          message: fastifyError.message(exception as Error),
        },
        headers: {},
      };
    }
    const fastifyStatus = (exception as { statusCode?: number })?.statusCode;
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const message =
        status === 404 && /^Cannot (GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)/.test(exception.message)
          ? `Route not found: ${request.method} ${request.url.split('?')[0]}`
          : status >= 500
            ? 'Internal error'
            : exception.message;
      return { description: { status, message }, headers: {} };
    }
    // A backstop, not a substitute for validation: data PostgreSQL refuses is the client's, not ours.
    const sqlState = (exception as { driverError?: { code?: string } })?.driverError?.code;
    if (sqlState?.startsWith('22')) {
      return {
        description: { status: 400, code: 'VALIDATION_FAILED', message: 'A value is out of range or malformed' },
        headers: {},
      };
    }
    if (sqlState === '23505' || sqlState === '23503' || sqlState === '23514') {
      return {
        description: { status: 409, code: 'CONFLICT', message: 'The change conflicts with existing data' },
        headers: {},
      };
    }
    if (typeof fastifyStatus === 'number' && isClientStatus(fastifyStatus)) {
      return { description: { status: fastifyStatus, message: (exception as Error).message }, headers: {} };
    }
    return { description: { status: 500, code: 'INTERNAL', message: 'Internal error' }, headers: {} };
  }
}

/** The longest path parameter the router takes; every id of the API is far shorter. */
export const MAX_PARAM_LENGTH = 100;

/**
 * Answers the errors Fastify's router raises before any route or hook runs (a path that is not valid
 * percent-encoding, a path parameter over MAX_PARAM_LENGTH) as 400 VALIDATION_FAILED in the contract's
 * shape, instead of Fastify's own body.
 */
export function frameworkErrorReply(error: { code?: string }, request: FastifyRequest, reply: FastifyReply): void {
  const message =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? `A path segment is longer than ${MAX_PARAM_LENGTH} characters`
      : 'The path is not a valid URL (malformed percent-encoding)';
  void reply
    .status(400)
    .header('x-request-id', request.id)
    .type('application/json; charset=utf-8')
    .send(
      errorBody(request.url, {
        status: 400,
        code: 'VALIDATION_FAILED',
        message,
        details: [{ field: 'path', message }],
      }),
    );
}
