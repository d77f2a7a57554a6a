import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startChild, type Child } from '../../../bench/lib/child.js';
import { call } from '../../../bench/lib/http.js';
import { createServices, productionEnv, type BenchServices } from '../../../bench/lib/services.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/**
 * The built app (`npm run test:faults` builds it first), started as `npm run start:prod` starts it: with the tracing
 * preload.
 */
const MAIN = path.join(ROOT, 'dist/apps/api/src/main.js');
const INSTRUMENT = path.join(ROOT, 'dist/apps/api/src/instrument.js');
const PUBLIC_KEY = `faults_public_${randomBytes(12).toString('hex')}`;

/**
 * The app as separate processes, as in production: an API (`APP_ROLE=api`) and a worker
 * (`APP_ROLE=worker`: outbox relay, deliveries, scheduled posts), on a database and Redis key prefix of
 * their own, which `close` removes. Processes can be killed and started again; their output goes to
 * log files whose last lines `logs()` answers, for the failure messages. `start(…, { apis, workers })`
 * runs several of each on the same database and Redis prefix, started side by side.
 */
export class FaultStack {
  api!: Child;
  worker?: Child;
  /** Every API process, `api` first; they share PUBLIC_BASE_URL (the first one's), as behind a load balancer. */
  readonly apis: Child[] = [];
  /** The workers `start` started. */
  startedWorkers: Child[] = [];
  private readonly children = new Set<Child>();
  private workerStarts = 0;

  private constructor(
    readonly services: BenchServices,
    private readonly env: Record<string, string>,
    private readonly apiPort: number,
    private readonly logDir: string,
  ) {}

  /**
   * Starts the API (the worker is started by the test: `startWorker`), or `apis` API processes and
   * `workers` workers at once (each answers once it is ready; `startedWorkers` holds the workers).
   * `redisUrl` and `databaseUrl` (a server's superuser URL) put the stack on a private Redis or
   * PostgreSQL the test may stop.
   */
  static async start(
    label: string,
    env: Record<string, string> = {},
    options: { redisUrl?: string; databaseUrl?: string; apis?: number; workers?: number } = {},
  ): Promise<FaultStack> {
    const services = await createServices({
      label: `faults_${label}`,
      redisUrl: options.redisUrl,
      databaseUrl: options.databaseUrl,
    });
    const apiPort = await freePort();
    const logDir = fs.mkdtempSync(path.join(os.tmpdir(), `storefront-faults-${label}-`));
    const stack = new FaultStack(
      services,
      {
        ...productionEnv(services, PUBLIC_KEY),
        // The API's own address: OAuth callbacks come back to it.
        PUBLIC_BASE_URL: `http://127.0.0.1:${apiPort}`,
        LOG_LEVEL: 'info',
        RATE_LIMIT_PER_MINUTE: '1000000',
        // Recovery in seconds rather than minutes, so the tests can wait for it.
        OUTBOX_SWEEP_INTERVAL_MS: '500',
        JOB_SWEEP_INTERVAL_MS: '500',
        LOST_JOB_AFTER_MS: '2000',
        OUTBOX_ACK_TIMEOUT_MS: '2000',
        ...env,
      },
      apiPort,
      logDir,
    );
    const extraPorts = await Promise.all(Array.from({ length: (options.apis ?? 1) - 1 }, () => freePort()));
    const [apis, workers] = await Promise.all([
      Promise.all(
        [apiPort, ...extraPorts].map((port, index) =>
          stack.spawn('api', index === 0 ? 'api' : `api-${index + 1}`, port),
        ),
      ),
      Promise.all(Array.from({ length: options.workers ?? 0 }, () => stack.startWorker())),
    ]);
    stack.apis.push(...apis);
    stack.api = apis[0];
    stack.startedWorkers = workers;
    return stack;
  }

  get url(): string {
    return this.api.url;
  }

  /**
   * Starts a worker process (each start gets its own log file; `env` adds to the stack's); it is ready when it says so.
   */
  async startWorker(env: Record<string, string> = {}): Promise<Child> {
    this.workerStarts += 1;
    this.worker = await this.spawn('worker', `worker-${this.workerStarts}`, undefined, env);
    return this.worker;
  }

  /** SIGKILL: no shutdown hook runs, no transaction commits, in-flight HTTP requests are cut. */
  async killWorker(): Promise<void> {
    const worker = this.worker!;
    const exited = new Promise((resolve) => worker.process.once('exit', resolve));
    worker.process.kill('SIGKILL');
    await exited;
    this.children.delete(worker);
  }

  /** SIGTERM (a graceful shutdown); answers how the process ended and how long it took. */
  async terminate(child: Child): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> {
    const started = Date.now();
    if (child.process.exitCode === null && child.process.signalCode === null) {
      const exited = new Promise((resolve) => child.process.once('exit', resolve));
      child.process.kill('SIGTERM');
      await exited;
    }
    return { code: child.process.exitCode, signal: child.process.signalCode, ms: Date.now() - started };
  }

  private async spawn(
    role: 'api' | 'worker',
    name: string,
    port = role === 'api' ? this.apiPort : undefined,
    env: Record<string, string> = {},
  ): Promise<Child> {
    const child = await startChild({
      name,
      script: MAIN,
      nodeArgs: ['--import', INSTRUMENT],
      env: { ...this.env, ...env, APP_ROLE: role, ...(port ? { PORT: String(port) } : {}) },
      logDir: this.logDir,
      port,
      readyPath: role === 'api' ? '/health/ready' : undefined,
      readyLine: role === 'worker' ? /worker running/ : undefined,
    });
    this.children.add(child);
    return child;
  }

  /** A JSON call to the API; throws on an unexpected status. */
  call<T = any>(method: string, route: string, options: Parameters<typeof call>[2] = {}) {
    return this.callAt<T>(0, method, route, options);
  }

  /** The same, to the API process `apis[index]`. */
  callAt<T = any>(index: number, method: string, route: string, options: Parameters<typeof call>[2] = {}) {
    return call<T>(method, `${this.apis[index].url}${route}`, options);
  }

  /** A merchant signed up through /auth/v1 with one store. */
  async merchant(): Promise<{ token: string; storeId: string; credentials: { email: string; password: string } }> {
    const credentials = {
      email: `faults-${randomBytes(4).toString('hex')}@example.com`,
      password: 'correct horse battery staple',
    };
    const session = await this.call('POST', '/auth/v1/signup', { headers: { apikey: PUBLIC_KEY }, body: credentials });
    const token = session.body.access_token as string;
    const store = await this.call('POST', '/functions/v1/stores', { token, body: { name: 'Fault test store' } });
    return { token, storeId: store.body.store.id as string, credentials };
  }

  /** Connects the store to a platform's account (a fake's) through the OAuth flow, as a browser would. */
  async connect(merchant: { token: string; storeId: string }, platform: string): Promise<void> {
    const started = await this.call('POST', '/functions/v1/social-connect', {
      token: merchant.token,
      body: { platform, store_id: merchant.storeId, redirect_url: 'http://localhost:5173/settings/social' },
    });
    // auth_url is this service's start URL: it binds the connect to this "browser" with a cookie.
    const start = new URL(started.body.auth_url);
    const opened = await fetch(`${this.url}${start.pathname}${start.search}`, { redirect: 'manual' });
    const cookie = opened.headers.get('set-cookie')!.split(';')[0];
    const consent = await fetch(opened.headers.get('location')!, { redirect: 'manual' });
    const callback = new URL(consent.headers.get('location')!);
    const back = await fetch(`${this.url}${callback.pathname}${callback.search}`, {
      redirect: 'manual',
      headers: { cookie },
    });
    const status = new URL(back.headers.get('location')!).searchParams.get('status');
    if (status !== 'connected') throw new Error(`${platform} connect ended ${back.headers.get('location')}`);
  }

  /** A password sign-in, whatever it answers. */
  signIn(credentials: { email: string; password: string }) {
    return this.call('POST', '/auth/v1/token?grant_type=password', {
      headers: { apikey: PUBLIC_KEY },
      body: credentials,
      expect: [200, 400, 429, 503],
    });
  }

  /** The last lines of every process's output, for a failure message. */
  logs(lines = 20): string {
    return [...this.children].map((child) => `--- ${child.name}\n${child.output(lines)}`).join('\n');
  }

  /** Polls `check` until it answers a truthy value; fails with `what` and the processes' output. */
  async eventually<T>(what: string, check: () => Promise<T | undefined | null | false>, timeoutMs: number): Promise<T> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const value = await check();
      if (value) return value;
      if (Date.now() > until) throw new Error(`${what}: not within ${timeoutMs} ms\n${this.logs()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.children].map((child) => child.stop(5000)));
    await this.services.cleanUp();
    fs.rmSync(this.logDir, { recursive: true, force: true });
  }
}
