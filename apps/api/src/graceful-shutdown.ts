import { Logger, type INestApplicationContext } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import type { Socket } from 'node:net';
import { errorBody, flushTraces } from '@app/core';

/** How long an exiting process waits for its last spans to reach the collector (tracing on). */
const TRACE_FLUSH_MS = 2000;

/**
 * Retry-After (seconds) of the 503 a request gets while this instance shuts down: another instance can take it at once.
 */
const SHUTDOWN_RETRY_AFTER_SECONDS = 1;

/**
 * How the HTTP server drains when the application closes (`app.close()`: Nest closes the HTTP server
 * first, then its shutdown hooks close the database and Redis). Fastify stops accepting connections
 * and closes the idle keep-alive ones at once (`forceCloseConnections: 'idle'`); the in-flight
 * requests finish, each answer carrying `Connection: close` so that a busy connection ends right after
 * it instead of idling out its keep-alive (72 s); a request that still arrives on an open connection
 * is answered 503 SERVICE_UNAVAILABLE in the error envelope, with Retry-After.
 */
export function registerDrainHooks(fastify: FastifyInstance): void {
  let draining = false;
  // Node closes the keep-alive connections that are idle between requests, not the ones that never
  // sent a byte (a preconnect): those would hold the close until their headers timeout (60 s).
  const connections = new Set<Socket>();
  fastify.server.on('connection', (socket: Socket) => {
    // Accepted between the start of the drain and the listening socket's close: not served.
    if (draining) return void socket.destroy();
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  fastify.addHook('preClose', async () => {
    draining = true;
    for (const socket of connections) if (socket.bytesRead === 0) socket.destroy();
  });
  // Callback hooks, not async ones: they run on every request, and an async hook costs a promise each time.
  fastify.addHook('onRequest', (request, reply, done) => {
    if (!draining) return done();
    // Answered here: the request goes no further (done is not called).
    void reply
      .status(503)
      .header('connection', 'close')
      .header('retry-after', String(SHUTDOWN_RETRY_AFTER_SECONDS))
      .type('application/json; charset=utf-8')
      .send(
        errorBody(request.url, {
          status: 503,
          code: 'SERVICE_UNAVAILABLE',
          message: 'This server is shutting down; retry the request',
        }),
      );
  });
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    if (draining) void reply.header('connection', 'close');
    done(null, payload);
  });
}

/**
 * SIGTERM and SIGINT close the application once (`app.close()`: HTTP drained, then the workers'
 * jobs, the relay and the timers stopped, then the connections closed) and exit 0; the start and the
 * end are logged. Past `timeoutMs` the process exits 1 with a log line, whatever is still running.
 */
export function shutDownOnSignals(app: INestApplicationContext, timeoutMs: number): void {
  const logger = new Logger('Shutdown');
  let startedAt: number | undefined;
  const shutDown = (signal: NodeJS.Signals) => {
    if (startedAt !== undefined) {
      logger.warn(`${signal} received while shutting down; still waiting (at most ${timeoutMs} ms in all)`);
      return;
    }
    startedAt = Date.now();
    const elapsed = () => Date.now() - startedAt!;
    logger.log({ signal, timeout_ms: timeoutMs }, `${signal}: shutting down, in-flight work has up to ${timeoutMs} ms`);
    const force = setTimeout(() => {
      logger.error({ signal, elapsed_ms: elapsed() }, `shutdown did not finish within ${timeoutMs} ms; exiting now`);
      process.exit(1);
    }, timeoutMs);
    app.close().then(
      async () => {
        clearTimeout(force);
        logger.log({ signal, elapsed_ms: elapsed() }, `shutdown complete in ${elapsed()} ms`);
        await flushTraces(TRACE_FLUSH_MS);
        process.exit(0);
      },
      (error: Error) => {
        clearTimeout(force);
        logger.error({ signal, elapsed_ms: elapsed(), err: { message: error.message } }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', shutDown);
  process.on('SIGINT', shutDown);
}
