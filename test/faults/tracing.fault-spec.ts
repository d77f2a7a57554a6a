import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { FakePlatformServer } from '../fakes/platform-server.js';
import { OtlpReceiver, type ReceivedSpan } from '../fakes/otlp-receiver.js';
import { WebhookReceiver } from '../fakes/webhook-receiver.js';
import { FaultStack } from './support/stack.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const INSTRUMENT = path.join(ROOT, 'dist/apps/api/src/instrument.js');
const SERVER = 2;
const PRODUCER = 4;
const CONSUMER = 5;

/**
 * Tracing (OTEL_EXPORTER_OTLP_ENDPOINT) in the built app started as in production, with the preload
 * (`--import dist/apps/api/src/instrument.js`), an API and a worker process exporting to a collector
 * of the test's own on 127.0.0.1: requests, their database and Redis work, the scheduled-post job a
 * request queued, and the trace ids in the request's log line.
 */
describe('tracing with OpenTelemetry (OTLP/HTTP)', () => {
  let receiver: OtlpReceiver;
  let fake: FakePlatformServer;
  let stack: FaultStack;
  let merchant: Awaited<ReturnType<FaultStack['merchant']>>;

  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
    fake = await FakePlatformServer.start();
    stack = await FaultStack.start('tracing', {
      ...fake.env(),
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: 'storefront-tracing-test',
      // Batches leave every 100 ms, so the test waits for spans, not for the default 5 s.
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    await stack.startWorker();
    merchant = await stack.merchant();
  });
  afterAll(async () => {
    await stack?.close();
    await fake?.close();
    await receiver?.close();
  });

  /**
   * The server span of the request with this X-Request-Id (its request span names the id; the server span is its
   * parent).
   */
  const serverSpanOf = (requestId: string) =>
    stack.eventually(
      `the server span of request ${requestId}`,
      async () => {
        const request = receiver.spans.find(
          (span) => span.scope === '@fastify/otel' && span.attributes['http.request.id'] === requestId,
        );
        const server = receiver.span(request?.parentSpanId);
        return server?.kind === SERVER ? server : undefined;
      },
      15_000,
    );

  /** The API's "request completed" line of the request with this X-Request-Id. */
  function requestLog(requestId: string): { trace_id?: string; span_id?: string; req: { url: string } } | undefined {
    return fs
      .readFileSync(stack.api.logFile, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line))
      .find((line) => line.req?.id === requestId && line.msg === 'request completed');
  }

  it(
    'an authenticated request: a server span named by its route, ' +
      'child pg spans in its trace, and its log line carries the trace',
    async () => {
      const requestId = randomUUID();
      await stack.call('GET', `/functions/v1/stores/${merchant.storeId}/products`, {
        token: merchant.token,
        headers: { 'x-request-id': requestId },
      });

      const server = await serverSpanOf(requestId);
      expect(server.service).toBe('storefront-tracing-test');
      expect(server.attributes['http.route']).toBe('/functions/v1/stores/:store_id/products');
      expect(server.name).toBe('GET /functions/v1/stores/:store_id/products');
      expect(server.parentSpanId).toBeUndefined();

      const queries = await stack.eventually(
        'the request’s pg spans',
        async () => {
          const found = receiver.spans.filter(
            (span) => span.scope === '@opentelemetry/instrumentation-pg' && span.traceId === server.traceId,
          );
          return found.some((span) => span.name.startsWith('pg.query:SELECT')) &&
            found.some((span) => span.name.startsWith('pg.query:COMMIT'))
            ? found
            : undefined;
        },
        15_000,
      );
      for (const query of queries) expect(receiver.descendsFrom(query, server)).toBe(true);
      // The rate limit's count in Redis is part of the same request.
      const redis = receiver.spans.filter(
        (span) => span.scope === '@opentelemetry/instrumentation-ioredis' && span.traceId === server.traceId,
      );
      expect(redis.length).toBeGreaterThan(0);

      const line = requestLog(requestId)!;
      expect(line.trace_id).toBe(server.traceId);
      expect(line.span_id).toMatch(/^[0-9a-f]{16}$/);
      expect(receiver.span(line.span_id)?.traceId).toBe(server.traceId);
      expect(receiver.refused).toEqual([]);
    },
  );

  it('a scheduled post: the job the request queued runs in the worker as a child of that request’s trace', async () => {
    await stack.connect(merchant, 'x');
    const text = `traced post ${randomUUID().slice(0, 8)}`;
    const requestId = randomUUID();
    await stack.call('POST', '/functions/v1/social-publish', {
      token: merchant.token,
      headers: { 'x-request-id': requestId },
      body: {
        store_id: merchant.storeId,
        platforms: ['x'],
        content: { text },
        schedule_at: new Date(Date.now() + 3000).toISOString(),
      },
    });
    const server = await serverSpanOf(requestId);
    expect(server.name).toBe('POST /functions/v1/social-publish');

    const job = await stack.eventually(
      'the scheduled post’s job span',
      async () =>
        receiver.spans.find(
          (span) => span.kind === CONSUMER && span.name === 'social-posts process' && span.traceId === server.traceId,
        ),
      30_000,
    );
    const queued = receiver.span(job.parentSpanId)!;
    expect(queued).toMatchObject({ kind: PRODUCER, name: 'social-posts send', traceId: server.traceId });
    expect(receiver.descendsFrom(queued, server)).toBe(true);
    expect(job.attributes['messaging.system']).toBe('bull');
    expect(job.service).toBe('storefront-tracing-test');

    // The worker's database work for the job (the claim, the result) is inside the job's span.
    const jobQueries = await stack.eventually(
      'the job’s pg spans',
      async () => {
        const found = receiver.spans.filter(
          (span: ReceivedSpan) => span.scope === '@opentelemetry/instrumentation-pg' && span.traceId === server.traceId,
        );
        const inJob = found.filter((span) => receiver.descendsFrom(span, job));
        return inJob.some((span) => span.name.startsWith('pg.query:UPDATE')) ? inJob : undefined;
      },
      15_000,
    );
    expect(jobQueries.length).toBeGreaterThan(0);
    await stack.eventually(
      'the post on the platform',
      async () => fake.posts.some((item) => item.text === text),
      15_000,
    );
  });

  it(
    'a webhook delivery: the relay queues it, the worker’s job span holds ' +
      'the delivery’s database work; no trace header reaches the receiver',
    async () => {
      const webhooks = new WebhookReceiver();
      const url = await webhooks.start();
      try {
        await stack.call('POST', '/functions/v1/webhooks/register', {
          token: merchant.token,
          body: { store_id: merchant.storeId, url: `${url}/ok/traced`, events: ['product.created'] },
        });
        await stack.call('POST', `/functions/v1/stores/${merchant.storeId}/products`, {
          token: merchant.token,
          body: { name: 'Traced mug', price: 12, status: 'active', inventory_quantity: 1 },
        });
        await stack.eventually('the delivery', async () => webhooks.to('/ok/traced').length > 0, 30_000);
        const job = await stack.eventually(
          'the delivery job’s span',
          async () => {
            const found = receiver.spans.find(
              (span) => span.kind === CONSUMER && span.name === 'webhook-deliveries process',
            );
            const queued = receiver.span(found?.parentSpanId);
            return found && queued ? { found, queued } : undefined;
          },
          15_000,
        );
        expect(job.queued).toMatchObject({
          kind: PRODUCER,
          name: 'webhook-deliveries send',
          traceId: job.found.traceId,
        });
        const jobQueries = await stack.eventually(
          'the delivery job’s pg spans',
          async () => {
            const inJob = receiver.spans.filter(
              (span) =>
                span.scope === '@opentelemetry/instrumentation-pg' &&
                span.traceId === job.found.traceId &&
                receiver.descendsFrom(span, job.found),
            );
            return inJob.length > 0 ? inJob : undefined;
          },
          15_000,
        );
        expect(jobQueries.length).toBeGreaterThan(0);
        const [delivered] = webhooks.to('/ok/traced');
        expect(delivered.headers.traceparent).toBeUndefined();
        expect(delivered.headers.tracestate).toBeUndefined();
      } finally {
        await webhooks.stop();
      }
    },
  );

  it('without OTEL_EXPORTER_OTLP_ENDPOINT the preload loads no SDK: no tracer provider is registered', async () => {
    const probe = [
      "const api = globalThis[Symbol.for('opentelemetry.js.api.1')];",
      'console.log(JSON.stringify({ registered: Boolean(api?.trace) }));',
    ].join('\n');
    const run = (env: Record<string, string>) =>
      promisify(execFile)(process.execPath, ['--import', INSTRUMENT, '--input-type=module', '-e', probe], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', ...env },
      });
    expect(JSON.parse((await run({})).stdout)).toEqual({ registered: false });
    // The same probe sees the SDK when the variable is set (nothing is exported: the process ends first).
    expect(JSON.parse((await run({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url })).stdout)).toEqual({ registered: true });
  });
});
