import { QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';

/**
 * Socket errors of a connection to the server that is refused, cut or unanswered: the database is
 * down, restarting or out of reach, which says nothing about the request itself.
 */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server that cannot serve now: class 08 (connection exception), 57P01 admin_shutdown,
 * 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up or shutting down), 53300 too_many_connections.
 */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** What `pg` and `pg-pool` say when a connection dies or cannot be had in time. */
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated/, // unexpectedly; due to connection timeout
  /^timeout exceeded when trying to connect$/, // pool acquire wait (connectionTimeoutMillis)
  /is not queryable$/, // a client that already lost its connection
  /^Client was closed/,
];

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  driverError?: unknown;
  cause?: unknown;
  errors?: unknown;
}

/**
 * Whether an error means the database could not be reached (refused, cut, shut down, no connection
 * within DATABASE_CONNECT_TIMEOUT_MS) rather than that a statement failed. Looks through TypeORM's
 * `driverError`, `cause` and an AggregateError's `errors` (a refused localhost tries IPv4 and IPv6).
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 5 || typeof error !== 'object' || error === null) return false;
  // TypeORM releases a transaction's connection the moment that connection fails (the server went
  // away between two statements); the transaction's next statement, or its COMMIT, then throws one of these.
  if (error instanceof QueryRunnerProviderAlreadyReleasedError || error instanceof QueryRunnerAlreadyReleasedError)
    return true;
  const { code, message, driverError, cause, errors } = error as ErrorLike;
  if (
    typeof code === 'string' &&
    (SOCKET_CODES.has(code) || UNAVAILABLE_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code))
  )
    return true;
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))) return true;
  if (Array.isArray(errors) && errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  return isDatabaseUnavailable(driverError, depth + 1) || isDatabaseUnavailable(cause, depth + 1);
}
