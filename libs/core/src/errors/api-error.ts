import { HttpException, HttpStatus } from '@nestjs/common';

/** The `error.code` values of the contract's error envelope. */
export const API_ERROR_CODES = [
  'VALIDATION_FAILED',
  'MALFORMED_JSON',
  'UNAUTHENTICATED',
  'INSUFFICIENT_CREDITS',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'INVALID_TRANSITION',
  'NOT_CANCELLABLE',
  'OUT_OF_STOCK',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'UNPROCESSABLE',
  'RATE_LIMITED',
  'UPSTREAM_FAILED',
  'NOT_CONFIGURED',
  'SERVICE_UNAVAILABLE',
  'INTERNAL',
] as const;

export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

export interface FieldError {
  field: string;
  message: string;
  /** For a rule of one social platform: which. */
  platform?: string;
}

/** An error that becomes `{success: false, error: {code, message, details}}` with its HTTP status. */
export class ApiError extends HttpException {
  constructor(
    status: number,
    readonly code: ApiErrorCode,
    message: string,
    readonly details?: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(message, status);
  }

  static validation(details: FieldError[], message = 'Request validation failed'): ApiError {
    return new ApiError(HttpStatus.BAD_REQUEST, 'VALIDATION_FAILED', message, details);
  }

  static unauthenticated(message = 'A valid access token is required'): ApiError {
    return new ApiError(HttpStatus.UNAUTHORIZED, 'UNAUTHENTICATED', message);
  }

  static forbidden(message = 'You are not allowed to do this'): ApiError {
    return new ApiError(HttpStatus.FORBIDDEN, 'FORBIDDEN', message);
  }

  static notFound(what = 'Resource'): ApiError {
    return new ApiError(HttpStatus.NOT_FOUND, 'NOT_FOUND', `${what} not found`);
  }

  static conflict(message: string, details?: unknown): ApiError {
    return new ApiError(HttpStatus.CONFLICT, 'CONFLICT', message, details);
  }

  static rateLimited(limit: number, windowSeconds: number, retryAfterSeconds: number): ApiError {
    const retry = Math.max(1, Math.ceil(retryAfterSeconds));
    return new ApiError(
      HttpStatus.TOO_MANY_REQUESTS,
      'RATE_LIMITED',
      `Too many requests: at most ${limit} per ${windowSeconds} seconds; retry in ${retry} s`,
      { limit, window_seconds: windowSeconds, retry_after_seconds: retry },
      { 'Retry-After': String(retry) },
    );
  }

  /** A body that is not JSON where only JSON is taken. */
  static unsupportedMediaType(): ApiError {
    return new ApiError(
      HttpStatus.UNSUPPORTED_MEDIA_TYPE,
      'UNSUPPORTED_MEDIA_TYPE',
      'Content-Type must be application/json',
    );
  }

  static unprocessable(message: string, details?: unknown): ApiError {
    return new ApiError(HttpStatus.UNPROCESSABLE_ENTITY, 'UNPROCESSABLE', message, details);
  }

  static insufficientCredits(required: number, balance: number): ApiError {
    return new ApiError(
      HttpStatus.PAYMENT_REQUIRED,
      'INSUFFICIENT_CREDITS',
      `This needs ${required} AI credits; the store has ${balance}`,
      { required, balance },
    );
  }

  static upstreamFailed(message: string): ApiError {
    return new ApiError(HttpStatus.BAD_GATEWAY, 'UPSTREAM_FAILED', message);
  }

  static notConfigured(message: string): ApiError {
    return new ApiError(HttpStatus.SERVICE_UNAVAILABLE, 'NOT_CONFIGURED', message);
  }

  /**
   * Something the request needs is down for now (the database, a shutdown): worth retrying shortly, maybe elsewhere.
   */
  static serviceUnavailable(message: string, retryAfterSeconds: number, details?: unknown): ApiError {
    return new ApiError(HttpStatus.SERVICE_UNAVAILABLE, 'SERVICE_UNAVAILABLE', message, details, {
      'Retry-After': String(retryAfterSeconds),
    });
  }
}
