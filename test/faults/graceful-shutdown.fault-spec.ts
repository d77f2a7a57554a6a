import fs from 'node:fs';
import { connect, type Socket } from 'node:net';
import { FakeOpenAiServer, SAMPLE_ANSWERS, SCHEMA_NAMES } from '../fakes/openai-server.js';
import { WebhookReceiver } from '../fakes/webhook-receiver.js';
import { FaultStack } from './support/stack.js';

const SHUTDOWN_TIMEOUT_MS = 10_000;
/** How long the fake AI provider takes to answer: the API's slow request. */
const PROVIDER_DELAY_MS = 3000;
const AI_KEY = 'sk-faults-graceful-shutdown';

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * One HTTP/1.1 connection driven by hand, so the test decides what is in flight, what is idle and
 * what arrives half-sent: `send` writes bytes, `response` reads the next whole answer (Content-Length
 * bodies, as the API sends), `closed` resolves when the server ends the connection.
 */
class RawConnection {
  private buffer = Buffer.alloc(0);
  private waiting?: () => void;
  closedAt?: number;
  readonly closed: Promise<number>;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.waiting?.();
    });
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        this.closedAt = Date.now();
        this.waiting?.();
        resolve(this.closedAt);
      }),
    );
    socket.on('error', () => undefined);
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  destroy(): void {
    this.socket.destroy();
  }

  send(text: string): void {
    this.socket.write(text);
  }

  /** A whole request, keep-alive. */
  request(method: string, path: string, headers: Record<string, string> = {}, body?: unknown): void {
    const payload = body === undefined ? '' : JSON.stringify(body);
    const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: keep-alive'];
    for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
    if (body !== undefined)
      lines.push('Content-Type: application/json', `Content-Length: ${Buffer.byteLength(payload)}`);
    this.send(`${lines.join('\r\n')}\r\n\r\n${payload}`);
  }

  async response(timeoutMs: number): Promise<RawResponse> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const parsed = this.parse();
      if (parsed) return parsed;
      if (this.closedAt !== undefined)
        throw new Error(`connection closed before a whole answer: ${this.buffer.toString()}`);
      if (Date.now() > until) throw new Error(`no whole answer within ${timeoutMs} ms: ${this.buffer.toString()}`);
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
        setTimeout(resolve, 100);
      });
    }
  }

  private parse(): RawResponse | undefined {
    const end = this.buffer.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const [statusLine, ...lines] = this.buffer.subarray(0, end).toString('latin1').split('\r\n');
    const headers = Object.fromEntries(
      lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    const length = Number(headers['content-length'] ?? 0);
    if (this.buffer.length < end + 4 + length) return undefined;
    const body = this.buffer.subarray(end + 4, end + 4 + length).toString('utf8');
    this.buffer = this.buffer.subarray(end + 4 + length);
    return { status: Number(statusLine.split(' ')[1]), headers, body };
  }
}

function logLines(file: string): string[] {
  return fs.readFileSync(file, 'utf8').split('\n');
}

/**
 * (e) SIGTERM: the API finishes what it is answering (with `Connection: close`), closes idle
 * connections at once, answers a request that still arrives 503 in the error envelope, and exits 0;
 * a worker finishes its delivery in flight before exiting, or, when its shutdown time is shorter
 * than the delivery, hands the job back so the next worker runs it at once (not after Bull's 30 s
 * stalled-job check). The start and the end of every shutdown are logged.
 */
describe('fault: graceful shutdown (SIGTERM)', () => {
  let stack: FaultStack;
  let provider: FakeOpenAiServer;
  let receiver: WebhookReceiver;
  let receiverUrl: string;
  let merchant: Awaited<ReturnType<FaultStack['merchant']>>;
  let productId: string;

  beforeAll(async () => {
    provider = await FakeOpenAiServer.start({ apiKey: AI_KEY });
    receiver = new WebhookReceiver();
    receiverUrl = await receiver.start();
    stack = await FaultStack.start('graceful_shutdown', {
      AI_PROVIDER: 'openai',
      AI_BASE_URL: provider.url,
      AI_API_KEY: AI_KEY,
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
      // Only the job itself may bring a delivery back here: the lost-job sweep would hide a lost job.
      LOST_JOB_AFTER_MS: '600000',
    });
    merchant = await stack.merchant();
    const product = await stack.call('POST', `/functions/v1/stores/${merchant.storeId}/products`, {
      token: merchant.token,
      body: { name: 'Lamp', price: 40, status: 'active', inventory_quantity: 1000 },
    });
    productId = product.body.product.id;
    await stack.call('POST', '/functions/v1/webhooks/register', {
      token: merchant.token,
      body: { store_id: merchant.storeId, url: `${receiverUrl}/hang/orders`, events: ['order.created'] },
    });
  });
  afterAll(async () => {
    await stack?.close();
    await provider?.close();
    await receiver?.stop();
  });

  /** Places an order and answers the id of its order.created event. */
  async function orderEvent(): Promise<string> {
    const order = await stack.call('POST', `/functions/v1/stores/${merchant.storeId}/orders`, {
      token: merchant.token,
      body: { items: [{ product_id: productId, quantity: 1 }] },
    });
    const { rows } = await stack.services.db.query<{ id: string }>(
      `SELECT id FROM outbox_events WHERE event = 'order.created' AND data->>'order_id' = $1`,
      [order.body.order.id],
    );
    return rows[0].id;
  }

  const arrivals = (eventId: string) =>
    receiver.requests.filter((request) => JSON.parse(request.body).id === eventId).length;
  const delivery = async (eventId: string) =>
    (
      await stack.services.db.query<{ status: string; attempt_count: number }>(
        'SELECT status, attempt_count FROM webhook_deliveries WHERE event_id = $1',
        [eventId],
      )
    ).rows[0];

  it('a worker stopped right after its start exits 0, without an unhandled error', async () => {
    const worker = await stack.startWorker();
    const ended = await stack.terminate(worker);
    expect(ended, worker.output(30)).toMatchObject({ code: 0, signal: null });
    const log = fs.readFileSync(worker.logFile, 'utf8');
    expect(log).toMatch(/SIGTERM: shutting down/);
    expect(log).toMatch(/shutdown complete in \d+ ms/);
    expect(log).not.toMatch(/Unhandled|Connection is closed|"level":(50|60)/);
  });

  it('a worker SIGTERMed mid-delivery finishes the delivery before it exits', async () => {
    const worker = await stack.startWorker();
    const eventId = await orderEvent();
    await stack.eventually('the delivery in flight', async () => arrivals(eventId) === 1, 30_000);
    const ending = stack.terminate(worker);
    // Shutting down, and still waiting for the receiver's answer: then the receiver answers.
    await stack.eventually(
      'the worker shutting down',
      async () => /SIGTERM: shutting down/.test(fs.readFileSync(worker.logFile, 'utf8')),
      5000,
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(worker.process.exitCode, 'still running while its delivery is in flight').toBeNull();
    receiver.release();
    const ended = await ending;
    expect(ended, worker.output(30)).toMatchObject({ code: 0, signal: null });
    expect(ended.ms).toBeLessThan(SHUTDOWN_TIMEOUT_MS);
    // It waited for the receiver's answer and recorded it: once, succeeded.
    expect(await delivery(eventId)).toEqual({ status: 'succeeded', attempt_count: 1 });
    expect(arrivals(eventId)).toBe(1);
    const log = fs.readFileSync(worker.logFile, 'utf8');
    expect(log).toMatch(/SIGTERM: shutting down/);
    expect(log).toMatch(/shutdown complete in \d+ ms/);
    console.info(`worker SIGTERM mid-delivery: exited 0 after ${ended.ms} ms, the delivery finished and recorded`);
  });

  it(
    'a worker whose shutdown time is shorter than its delivery ' +
      'hands the job back, and the next worker runs it at once',
    async () => {
      const shortTimeoutMs = 2000;
      const worker = await stack.startWorker({ SHUTDOWN_TIMEOUT_MS: String(shortTimeoutMs) });
      const eventId = await orderEvent();
      await stack.eventually('the delivery in flight', async () => arrivals(eventId) === 1, 30_000);
      const ended = await stack.terminate(worker);
      expect(ended, worker.output(30)).toMatchObject({ code: 0, signal: null });
      expect(ended.ms).toBeLessThan(shortTimeoutMs + 500);
      expect(fs.readFileSync(worker.logFile, 'utf8')).toMatch(/handed back to the queue/);
      expect(await delivery(eventId)).toMatchObject({ status: 'pending', attempt_count: 0 });

      // A job left locked would wait for Bull's stalled-job check (its lock expires 30 s after the
      // last renewal); a handed-back one is waiting, and the next worker takes it as it starts.
      const next = await stack.startWorker();
      const readyAt = Date.now();
      await stack.eventually(
        'the handed-back job sent again by the next worker',
        async () => arrivals(eventId) === 2,
        10_000,
      );
      const resentAfterMs = Date.now() - readyAt;
      receiver.release();
      await stack.eventually(
        'the delivery recorded by the next worker',
        async () => (await delivery(eventId))?.status === 'succeeded',
        10_000,
      );
      expect(await delivery(eventId)).toEqual({ status: 'succeeded', attempt_count: 1 });
      expect(arrivals(eventId)).toBe(2);
      await stack.terminate(next);
      console.info(
        `worker SIGTERM with a ${shortTimeoutMs} ms timeout: exited 0 after ${ended.ms} ms, job handed back; ` +
          `the next worker sent it again ${resentAfterMs} ms after its start`,
      );
    },
  );

  it(
    'the API finishes its in-flight request with Connection: close, ' +
      'closes idle connections, answers 503 meanwhile, and exits 0',
    async () => {
      const port = Number(new URL(stack.url).port);
      const auth = { Authorization: `Bearer ${merchant.token}` };
      provider.enqueue('chat', {
        kind: 'delay',
        ms: PROVIDER_DELAY_MS,
        then: { kind: 'json', content: SAMPLE_ANSWERS[SCHEMA_NAMES.insights] },
      });

      // An idle keep-alive connection (it has had its answer), a slow request in flight, and a client
      // half-way through sending its request headers.
      const idle = await RawConnection.open(port);
      idle.request('GET', '/health');
      expect((await idle.response(5000)).status).toBe(200);
      const slow = await RawConnection.open(port);
      slow.request('POST', '/functions/v1/research-social-context', auth, {
        store_id: merchant.storeId,
        query: 'desk lamps',
        platforms: ['instagram'],
      });
      await stack.eventually(
        'the slow request at the provider',
        async () => provider.chatRequests.length === 1,
        10_000,
      );
      const held = await RawConnection.open(port);
      held.send(`GET /functions/v1/stores HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${merchant.token}\r\n`);
      // A round trip on another connection after those bytes were sent: the server has read them by its
      // answer (it reads every socket the poll finds ready), so the drain cannot take the held connection
      // for one that never sent a byte, which it would close at once.
      const barrier = await RawConnection.open(port);
      barrier.request('GET', '/health');
      expect((await barrier.response(5000)).status).toBe(200);
      barrier.destroy();

      const api = stack.api;
      const signalledAt = Date.now();
      const ending = stack.terminate(api);

      // The idle connection is closed at once; new connections are refused.
      const idleClosedAfterMs = (await idle.closed) - signalledAt;
      expect(idleClosedAfterMs).toBeLessThan(1000);
      await stack.eventually(
        'new connections refused',
        async () =>
          RawConnection.open(port).then(
            (connection) => void connection.destroy(),
            (error: { code?: string }) => error.code === 'ECONNREFUSED',
          ),
        1000,
      );

      // The request that arrives on the held connection meanwhile: 503 in the envelope, and the connection closes.
      held.send('\r\n');
      const refused = await held.response(5000);
      expect(refused.status).toBe(503);
      expect(refused.headers.connection).toBe('close');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(JSON.parse(refused.body)).toEqual({
        success: false,
        error: { code: 'SERVICE_UNAVAILABLE', message: 'This server is shutting down; retry the request' },
      });
      await held.closed;

      // The slow request completes, told to close its connection, and it does.
      const answered = await slow.response(SHUTDOWN_TIMEOUT_MS);
      expect(answered.status, answered.body).toBe(200);
      expect(answered.headers.connection).toBe('close');
      expect(JSON.parse(answered.body).insights).toEqual(SAMPLE_ANSWERS[SCHEMA_NAMES.insights]);
      const slowClosedAfterMs = (await slow.closed) - signalledAt;

      const ended = await ending;
      expect(ended, api.output(30)).toMatchObject({ code: 0, signal: null });
      expect(ended.ms).toBeLessThan(SHUTDOWN_TIMEOUT_MS);
      const lines = logLines(api.logFile);
      expect(lines.some((line) => /SIGTERM: shutting down/.test(line))).toBe(true);
      expect(lines.some((line) => /shutdown complete in \d+ ms/.test(line))).toBe(true);
      expect(lines.join('\n')).not.toMatch(/Unhandled|"level":60/);
      console.info(
        `API SIGTERM: idle connection closed after ${idleClosedAfterMs} ` +
          `ms, the slow request answered 200 with Connection: close ` +
          `and its connection closed after ${slowClosedAfterMs} ms, a ` +
          `request arriving meanwhile 503; exited 0 after ${ended.ms} ms`,
      );
    },
  );
});
