import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import { Inject, Injectable, Module, Scope, type DynamicModule } from '@nestjs/common';
import { Logger, NativeLogger, PARAMS_PROVIDER_TOKEN, PinoLogger, type Params } from 'nestjs-pino';
import { pino, type DestinationStream, type Logger as PinoBaseLogger, type LoggerOptions } from 'pino';
import type { LoggingConfig } from './logging.config.js';
import { currentRequestFields } from './request-context.js';
import { traceIds } from './tracing.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's id: the caller's `X-Request-Id` when it is sane, else a new UUID; written back to the headers. */
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
 * Structured logs; credentials, cookies and query strings (OAuth codes) never reach them. JSON in
 * production and test, pino-pretty in development (LOG_FORMAT). With tracing on
 * (OTEL_EXPORTER_OTLP_ENDPOINT), each line logged inside a span carries its `trace_id` and `span_id`;
 * without it, no per-line work is added. A request's own line (`request completed`) is written by
 * request-context.ts through this logger.
 */
export function loggerOptions(config: LoggingConfig): LoggerOptions {
  return {
    level: config.LOG_LEVEL,
    ...(config.tracingEnabled ? { mixin: traceIds } : {}),
    redact: {
      // Headers (tokens, keys, cookies) are not logged at all: a request's lines name it by RequestFields.
      paths: ['*.password', '*.refresh_token', '*.access_token', '*.secret'],
      censor: '[redacted]',
    },
  };
}

/** The process's one pino logger: every line of the app, and every request's line, goes through it. */
export function createLogger(config: LoggingConfig): PinoBaseLogger {
  return pino(loggerOptions(config), destination(config.logFormat));
}

/** The process's pino logger (createLogger), for the request lines' hook (registerRequestContext). */
export const ROOT_LOGGER = Symbol('ROOT_LOGGER');

/**
 * nestjs-pino's PinoLogger (behind its Logger, the app's Nest logger) on the process's pino logger,
 * whose lines written inside a request carry the request's `req` (id, method, path, address, user
 * agent) as they did under pino-http: read from the request's nestjs-cls store when a line is written,
 * so a request that logs nothing of its own costs nothing here. (nestjs-pino's own PinoLogger looks for
 * a logger in an AsyncLocalStorage that only its middleware enters.)
 */
@Injectable({ scope: Scope.TRANSIENT })
export class RequestBoundPinoLogger extends PinoLogger {
  private readonly root: PinoBaseLogger;

  constructor(@Inject(PARAMS_PROVIDER_TOKEN) params: Params) {
    super(params);
    this.root = (params.pinoHttp as { logger: PinoBaseLogger }).logger;
  }

  override get logger(): PinoBaseLogger {
    const req = currentRequestFields();
    return req === undefined ? this.root : this.root.child({ req });
  }
}

@Module({})
class LoggingModule {}

/**
 * nestjs-pino's loggers (Logger for `app.useLogger`, PinoLogger) on the process's pino logger, without
 * nestjs-pino's LoggerModule: that module mounts pino-http and a binding middleware of its own on
 * every route (a child logger, an AsyncLocalStorage and three listeners per request). A request's
 * line is written by registerRequestContext instead, with the same fields.
 */
export function loggingModule(config: LoggingConfig): DynamicModule {
  const root = createLogger(config);
  const params: Params = { pinoHttp: { logger: root } };
  return {
    module: LoggingModule,
    global: true,
    providers: [
      { provide: PARAMS_PROVIDER_TOKEN, useValue: params },
      { provide: ROOT_LOGGER, useValue: root },
      { provide: PinoLogger, useClass: RequestBoundPinoLogger },
      Logger,
      NativeLogger,
    ],
    exports: [PARAMS_PROVIDER_TOKEN, ROOT_LOGGER, PinoLogger, Logger, NativeLogger],
  };
}
