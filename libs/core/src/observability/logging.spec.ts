import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pinoHttp, type Options } from 'pino-http';
import { loggingConfig } from './logging.config.js';
import { loggerParams, type RequestActor } from './logging.js';
import { traceIds } from './tracing.js';

const options = (env: Record<string, string>) => {
  const [pinoOptions] = loggerParams(loggingConfig.from({ NODE_ENV: 'test', ...env })).pinoHttp as [
    Record<string, unknown>,
    unknown,
  ];
  return pinoOptions;
};

/** Waits until `check` holds (log lines are written asynchronously). */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('loggerParams', () => {
  it('adds the trace ids to each line only while tracing is on', () => {
    expect(options({}).mixin).toBeUndefined();
    expect(options({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }).mixin).toBe(traceIds);
  });

  it('outside a span the trace ids are absent, not empty', () => {
    expect(traceIds()).toEqual({});
  });

  it(
    'names who acted on the request line (actor): a ' + 'store key or a user, nothing for an anonymous caller',
    async () => {
      const lines: Record<string, any>[] = [];
      const sink = new Writable({
        write(chunk: Buffer, _encoding, callback) {
          for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
          callback();
        },
      });
      const middleware = pinoHttp(options({}) as Options, sink);
      const actors: Record<string, RequestActor> = {
        '/key': { type: 'api_key', id: 'k-1' },
        '/user': { type: 'user', id: 'u-1' },
      };
      const server = createServer((req, res) => {
        middleware(req, res);
        // As the auth guard does, after the line's logger was made and before the answer.
        req.storefrontActor = actors[req.url!];
        res.end('ok');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = server.address() as AddressInfo;
        for (const path of ['/key', '/user', '/anon'])
          await fetch(`http://127.0.0.1:${port}${path}`).then((r) => r.text());
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
      await until(() => lines.length === 3);
      const byPath = Object.fromEntries(lines.map((line) => [line.req.url, line.actor]));
      expect(byPath).toEqual({
        '/key': { type: 'api_key', id: 'k-1' },
        '/user': { type: 'user', id: 'u-1' },
        '/anon': undefined,
      });
    },
  );
});
