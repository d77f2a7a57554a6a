import { connect } from 'node:net';
import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { ClsServiceManager } from 'nestjs-cls';
import { pino } from 'pino';
import { loggingConfig } from './logging.config.js';
import { Logger } from 'nestjs-pino';
import { loggerOptions, RequestBoundPinoLogger, requestId, type RequestActor } from './logging.js';
import { currentRequestFields, registerRequestContext } from './request-context.js';
import { traceIds } from './tracing.js';

const options = (env: Record<string, string>) => loggerOptions(loggingConfig.from({ NODE_ENV: 'test', ...env }));

/** Waits until `check` holds (log lines are written asynchronously). */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** A Fastify app with the request hooks, logging into `lines`, as app.factory.ts sets them up. */
async function appLogging(routes: (app: FastifyInstance, logger: Logger) => void): Promise<{
  url: string;
  port: number;
  lines: Record<string, any>[];
  close: () => Promise<void>;
}> {
  const lines: Record<string, any>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      callback();
    },
  });
  const app = Fastify({ genReqId: requestId, forceCloseConnections: true });
  const root = pino(options({}), sink);
  registerRequestContext(app, root);
  // The app's Nest logger, as loggingModule wires it (the Logger of `app.useLogger`).
  routes(app, new Logger(new RequestBoundPinoLogger({ pinoHttp: { logger: root } }), {}));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, port, lines, close: () => app.close() };
}

describe('loggerOptions', () => {
  it('adds the trace ids to each line only while tracing is on', () => {
    expect(options({}).mixin).toBeUndefined();
    expect(options({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }).mixin).toBe(traceIds);
  });

  it('outside a span the trace ids are absent, not empty', () => {
    expect(traceIds()).toEqual({});
  });
});

describe('the request line (registerRequestContext)', () => {
  it(
    'names who acted on the request line (actor): a ' + 'store key or a user, nothing for an anonymous caller',
    async () => {
      const actors: Record<string, RequestActor> = {
        '/key': { type: 'api_key', id: 'k-1' },
        '/user': { type: 'user', id: 'u-1' },
      };
      const app = await appLogging((fastify) =>
        fastify.get('/:path', async (request) => {
          // As the auth guard does, after the request's context was entered and before the answer.
          request.raw.storefrontActor = actors[request.url];
          return 'ok';
        }),
      );
      try {
        for (const path of ['/key', '/user', '/anon']) await fetch(`${app.url}${path}`).then((r) => r.text());
        await until(() => app.lines.length === 3);
      } finally {
        await app.close();
      }
      const byPath = Object.fromEntries(app.lines.map((line) => [line.req.url, line.actor]));
      expect(byPath).toEqual({
        '/key': { type: 'api_key', id: 'k-1' },
        '/user': { type: 'user', id: 'u-1' },
        '/anon': undefined,
      });
    },
  );

  it('names the request (id, method, path without its query, address, user agent), its status and time', async () => {
    const app = await appLogging((fastify) => fastify.get('/products', async () => ({ ok: true })));
    try {
      await fetch(`${app.url}/products?code=secret-code`, {
        headers: { 'x-request-id': 'req-1', 'user-agent': 'test-agent/1', authorization: 'Bearer secret' },
      }).then((r) => r.text());
      await until(() => app.lines.length === 1);
    } finally {
      await app.close();
    }
    const [line] = app.lines;
    expect(line).toEqual({
      level: 30,
      time: expect.any(Number),
      pid: process.pid,
      hostname: expect.any(String),
      req: { id: 'req-1', method: 'GET', url: '/products', remoteAddress: '127.0.0.1', userAgent: 'test-agent/1' },
      res: { statusCode: 200 },
      responseTime: expect.any(Number),
      msg: 'request completed',
    });
    expect(Number.isInteger(line!.responseTime)).toBe(true);
    expect(JSON.stringify(line)).not.toMatch(/secret/);
  });

  it('a 5xx answer: "request errored" at error, with the error pino-http named', async () => {
    const app = await appLogging((fastify) =>
      fastify.get('/boom', async (_request, reply) => reply.code(503).send({ down: true })),
    );
    try {
      await fetch(`${app.url}/boom`).then((r) => r.text());
      await until(() => app.lines.length === 1);
    } finally {
      await app.close();
    }
    expect(app.lines[0]).toEqual({
      level: 50,
      time: expect.any(Number),
      pid: process.pid,
      hostname: expect.any(String),
      req: { id: expect.any(String), method: 'GET', url: '/boom', remoteAddress: '127.0.0.1', userAgent: 'node' },
      res: { statusCode: 503 },
      err: { type: 'Error', message: 'failed with status code 503', stack: expect.any(String) },
      responseTime: expect.any(Number),
      msg: 'request errored',
    });
  });

  it('a connection closed before the answer: one "request aborted" line, for a read and a write alike', async () => {
    let answered = 0;
    const app = await appLogging((fastify) => {
      const slow = async () => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        answered++;
        return { late: true };
      };
      fastify.get('/slow', slow);
      fastify.post('/slow', slow);
    });
    try {
      for (const method of ['GET', 'POST']) {
        const aborted = new AbortController();
        const call = fetch(`${app.url}/slow`, {
          method,
          signal: aborted.signal,
          ...(method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: '{"a":1}' } : {}),
        }).catch(() => undefined);
        setTimeout(() => aborted.abort(), 100);
        await call;
      }
      await until(() => answered === 2);
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      await app.close();
    }
    expect(app.lines.map((line) => [line.req.method, line.level, line.msg, line.res.statusCode])).toEqual([
      ['GET', 30, 'request aborted', null],
      ['POST', 30, 'request aborted', null],
    ]);
  });

  it('the handler of a write runs in the request’s context even when its body arrives after its headers', async () => {
    const seen: (string | undefined)[] = [];
    const app = await appLogging((fastify) =>
      fastify.post('/orders', async () => {
        seen.push(currentRequestFields()?.id);
        await new Promise((resolve) => setImmediate(resolve));
        seen.push(ClsServiceManager.getClsService().isActive() ? currentRequestFields()?.id : 'no context');
        return { ok: true };
      }),
    );
    try {
      const body = '{"items":[1,2,3]}';
      const socket = connect(app.port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      const answer = new Promise<string>((resolve) => {
        let text = '';
        socket.on('data', (chunk) => (text += chunk.toString()));
        socket.on('end', () => resolve(text));
      });
      socket.write(
        'POST /orders HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: split-body\r\nConnection: close\r\n' +
          `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      // The body in later packets, once the request's hooks have run.
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket.write(body.slice(0, 5));
      await new Promise((resolve) => setTimeout(resolve, 20));
      socket.end(body.slice(5));
      expect(await answer).toMatch(/^HTTP\/1\.1 200/);
    } finally {
      await app.close();
    }
    expect(seen).toEqual(['split-body', 'split-body']);
  });

  it('a line the app logs inside a request names the request (req), as pino-http’s did, and is redacted', async () => {
    const app = await appLogging((fastify, logger) =>
      fastify.post('/orders', async () => {
        logger.warn({ order: 1, body: { password: 'hunter2' } }, 'inside', 'Orders');
        await new Promise((resolve) => setImmediate(resolve));
        logger.warn('still inside', 'Orders');
        return { ok: true };
      }),
    );
    try {
      await fetch(`${app.url}/orders?x=1`, {
        method: 'POST',
        headers: { 'x-request-id': 'req-app', 'content-type': 'application/json' },
        body: '{}',
      }).then((r) => r.text());
      await until(() => app.lines.length === 3);
    } finally {
      await app.close();
    }
    const req = { id: 'req-app', method: 'POST', url: '/orders', remoteAddress: '127.0.0.1', userAgent: 'node' };
    expect(app.lines.map(({ time: _time, pid: _pid, hostname: _hostname, ...line }) => line)).toEqual([
      { level: 40, req, context: 'Orders', order: 1, body: { password: '[redacted]' }, msg: 'inside' },
      { level: 40, req, context: 'Orders', msg: 'still inside' },
      expect.objectContaining({ level: 30, req, msg: 'request completed' }),
    ]);
  });
});
