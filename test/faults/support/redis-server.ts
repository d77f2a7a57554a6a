import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { freePort } from '../../../bench/lib/child.js';

/**
 * A private redis-server on a free port of 127.0.0.1, which a test may stop and start again (never
 * the machine's shared Redis). It keeps nothing on disk: a restart comes back empty, as a Redis
 * that lost its data would, so every queued job is gone.
 */
export class RedisServer {
  private process?: ChildProcess;

  private constructor(readonly port: number) {}

  static async start(): Promise<RedisServer> {
    const server = new RedisServer(await freePort());
    await server.resume();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts (again) on the same port and waits until it answers PING. */
  async resume(): Promise<void> {
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    );
    this.process = child;
    const until = Date.now() + 10_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`redis-server on port ${this.port} exited (${child.exitCode})`);
      const client = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      client.on('error', () => undefined);
      const answer = await client
        .connect()
        .then(() => client.ping())
        .catch(() => null)
        .finally(() => client.disconnect());
      if (answer === 'PONG') return;
      if (Date.now() > until) throw new Error(`redis-server on port ${this.port} did not answer within 10 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Kills it (SIGKILL: no goodbye to clients) and waits until it is gone. */
  async stop(): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }
}
