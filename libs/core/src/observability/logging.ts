import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import { RequestMethod } from '@nestjs/common';
import type { Params } from 'nestjs-pino';
import { pino, type DestinationStream } from 'pino';
import type { LoggingConfig } from './logging.config.js';
import { traceIds } from './tracing.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's id: the caller's `X-Request-Id` when it is sane, else a new UUID; written back for the logger. */
export function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
  req.headers['x-request-id'] = id;
  return id;
}

/** Who acted in a request, as its log line names it (set by the auth guard once the caller is known). */
export interface RequestActor {
  type: 'user' | 'api_key';
  id: string;
}

declare module 'node:http' {
  interface IncomingMessage {
    /** The caller of the request, for its log line (a user or a store key); unset for anonymous requests. */
    storefrontActor?: RequestActor;
  }
}

/**
 * The request line with its `actor`: read when the answer is logged, by then the auth guard has named
 * the caller. (pino-http's customProps would make a child logger for every request; this does not.)
 */
function withActor(req: IncomingMessage, loggable: Record<string, unknown>): Record<string, unknown> {
  return req.storefrontActor ? { ...loggable, actor: req.storefrontActor } : loggable;
}

/**
 * Where the lines go. JSON: written asynchronously to stdout (under load the writes queued behind one
 * in progress go out together; whatever is pending is flushed when the process exits). Pretty: through
 * pino-pretty in a worker thread (a development dependency; without it, JSON and a warning).
 */
function destination(format: 'json' | 'pretty'): DestinationStream {
  if (format === 'pretty') {
    try {
      createRequire(import.meta.url).resolve('pino-pretty');
      return pino.transport({
        target: 'pino-pretty',
        options: {
          colorize: Boolean(process.stdout.isTTY),
          singleLine: true,
          translateTime: 'SYS:HH:MM:ss.l',
          ignore: 'pid,hostname',
        },
      });
    } catch {
      process.stderr.write('LOG_FORMAT=pretty needs pino-pretty (a development dependency); logging JSON instead\n');
    }
  }
  return pino.destination({ dest: 1, sync: false });
}

/**
 * Structured logs; credentials, cookies and query strings (OAuth codes) never reach them. A request's
 * line names the request (id, method, path, address, user agent) and who acted (`actor`: a user or a
 * store key), not all its headers. JSON in
 * production and test, pino-pretty in development (LOG_FORMAT). With tracing on
 * (OTEL_EXPORTER_OTLP_ENDPOINT), each line logged inside a span carries its `trace_id` and `span_id`;
 * without it, no per-line work is added.
 */
export function loggerParams(config: LoggingConfig): Params {
  return {
    forRoutes: [{ path: '{*splat}', method: RequestMethod.ALL }],
    pinoHttp: [
      {
        level: config.LOG_LEVEL,
        ...(config.tracingEnabled ? { mixin: traceIds } : {}),
        genReqId: (req) => requestId(req),
        redact: {
          // Headers (tokens, keys, cookies) are not logged at all: see the serializers.
          paths: ['*.password', '*.refresh_token', '*.access_token', '*.secret'],
          censor: '[redacted]',
        },
        serializers: {
          req: (req: {
            id: string;
            method: string;
            url: string;
            headers: Record<string, unknown>;
            remoteAddress?: string;
          }) => ({
            id: req.id,
            method: req.method,
            url: req.url?.split('?')[0],
            remoteAddress: req.remoteAddress,
            userAgent: req.headers['user-agent'],
          }),
          res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
        },
        customSuccessObject: (req, _res, loggable) => withActor(req, loggable),
        customErrorObject: (req, _res, _error, loggable) => withActor(req, loggable),
        customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
      },
      destination(config.logFormat),
    ],
  };
}
