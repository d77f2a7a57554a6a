import { HttpStatus } from '@nestjs/common';
import type { ApiErrorCode } from './api-error.js';

export const AUTH_PREFIX = '/auth/v1';
export const FUNCTIONS_PREFIX = '/functions/v1';

const CODE_BY_STATUS: Record<number, ApiErrorCode> = {
  400: 'VALIDATION_FAILED',
  401: 'UNAUTHENTICATED',
  402: 'INSUFFICIENT_CREDITS',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE',
  429: 'RATE_LIMITED',
  502: 'UPSTREAM_FAILED',
  503: 'NOT_CONFIGURED',
};

const GOTRUE_CODE_BY_STATUS: Record<number, string> = {
  400: 'validation_failed',
  401: 'no_authorization',
  403: 'forbidden',
  404: 'not_found',
  405: 'not_found',
  413: 'request_too_large',
  415: 'validation_failed',
  422: 'validation_failed',
  429: 'over_request_rate_limit',
  503: 'provider_disabled',
};

/** Codes of the envelope that GoTrue's shape spells its own way. */
const GOTRUE_CODE_BY_CODE: Record<string, string> = {
  SERVICE_UNAVAILABLE: 'service_unavailable',
};

export interface ErrorDescription {
  status: number;
  code?: string;
  message: string;
  details?: unknown;
}

export function defaultErrorCode(status: number): ApiErrorCode {
  return CODE_BY_STATUS[status] ?? (status >= 500 ? 'INTERNAL' : 'VALIDATION_FAILED');
}

/** The body of an error answer: GoTrue's shape under /auth/v1, the `success: false` envelope elsewhere. */
export function errorBody(path: string, error: ErrorDescription): Record<string, unknown> {
  if (path.startsWith(AUTH_PREFIX)) {
    const errorCode =
      error.code && /^[a-z_]+$/.test(error.code)
        ? error.code
        : (GOTRUE_CODE_BY_CODE[error.code ?? ''] ?? GOTRUE_CODE_BY_STATUS[error.status]);
    return { code: error.status, error_code: errorCode ?? 'unexpected_failure', msg: error.message };
  }
  const body: { code: string; message: string; details?: unknown } = {
    code: error.code ?? defaultErrorCode(error.status),
    message: error.message,
  };
  if (error.details !== undefined) body.details = error.details;
  return { success: false, error: body };
}

export function isClientStatus(status: number): boolean {
  return status >= HttpStatus.BAD_REQUEST && status < HttpStatus.INTERNAL_SERVER_ERROR;
}
