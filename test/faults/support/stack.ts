import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startChild, type Child } from '../../../bench/lib/child.js';
import { call } from '../../../bench/lib/http.js';
import { createServices, productionEnv, type BenchServices } from '../../../bench/lib/services.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The built app (`npm run test:faults` builds it first). */
const MAIN = path.join(ROOT, 'dist/apps/api/src/main.js');
const PUBLIC_KEY = `faults_public_${randomBytes(12).toString('hex')}`;

/**
 * The app as separate processes, as in production: an API (`APP_ROLE=api`) and a worker
 * (`APP_ROLE=worker`: outbox relay, deliveries, scheduled posts), on a database and Redis key prefix of
 * their own, which `close` removes. Processes can be killed and started again; their output goes to
 * log files whose last lines `logs()` answers, for the failure messages.
 */
export class FaultStack {
  api!: Child;
  worker?: Child;
  private readonly children = new Set<Child>();
  private workers = 0;

  private constructor(
    readonly services: BenchServices,
    private readonly env: Record<string, string>,
    private readonly apiPort: number,
    private readonly logDir: string,
  ) {}

  /** Starts the API (the worker is started by the test: `startWorker`). */
  static async start(label: string, env: Record<string, string> = {}, options: { redisUrl?: string } = {}): Promise<FaultStack> {
    const services = await createServices({ label: `faults_${label}`, redisUrl: options.redisUrl });
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
        ...env,
      },
      apiPort,
      logDir,
    );
    stack.api = await stack.spawn('api', 'api');
    return stack;
  }

  get url(): string {
    return this.api.url;
  }

  /** Starts a worker process (each start gets its own log file); it is ready when it says so. */
  async startWorker(): Promise<Child> {
    this.workers += 1;
    this.worker = await this.spawn('worker', `worker-${this.workers}`);
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

  private async spawn(role: 'api' | 'worker', name: string): Promise<Child> {
    const port = role === 'api' ? this.apiPort : undefined;
    const child = await startChild({
      name,
      script: MAIN,
      env: { ...this.env, APP_ROLE: role, ...(port ? { PORT: String(port) } : {}) },
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
    return call<T>(method, `${this.url}${route}`, options);
  }

  /** A merchant signed up through /auth/v1 with one store. */
  async merchant(): Promise<{ token: string; storeId: string; credentials: { email: string; password: string } }> {
    const credentials = { email: `faults-${randomBytes(4).toString('hex')}@example.com`, password: 'correct horse battery staple' };
    const session = await this.call('POST', '/auth/v1/signup', { headers: { apikey: PUBLIC_KEY }, body: credentials });
    const token = session.body.access_token as string;
    const store = await this.call('POST', '/functions/v1/stores', { token, body: { name: 'Fault test store' } });
    return { token, storeId: store.body.store.id as string, credentials };
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
