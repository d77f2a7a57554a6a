import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export type Behaviour = 'ok' | 'fail' | 'gone' | 'hang' | 'lag' | 'redirect';

/**
 * A webhook receiver on 127.0.0.1: `/<behaviour>/<anything>` answers 200, 500, 410, nothing until
 * `release()` (`hang`: a timeout whatever the machine's speed), 200 after 100 ms (`lag`: deliveries
 * stay in flight a while), or a 302 to `/ok/redirected`. Every request is recorded with its exact
 * body; `unanswered` counts the `lag` ones still waiting; `peakOpen(path)` is the most requests to a
 * path that were open at once (received, and neither answered nor given up by their sender).
 */
export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  unanswered = 0;
  private hanging: ServerResponse[] = [];
  private open = new Map<string, { now: number; peak: number }>();
  private server?: Server;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = req.url ?? '/';
        this.requests.push({
          path,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        });
        const open = this.open.get(path) ?? { now: 0, peak: 0 };
        this.open.set(path, open);
        open.now += 1;
        open.peak = Math.max(open.peak, open.now);
        res.on('close', () => (open.now -= 1));
        const behaviour = path.split('/')[1] as Behaviour;
        if (behaviour === 'hang') {
          this.hanging.push(res);
          return;
        }
        if (behaviour === 'lag') {
          this.unanswered += 1;
          setTimeout(() => {
            this.unanswered -= 1;
            if (!res.destroyed) res.writeHead(200).end('thanks');
          }, 100).unref();
          return;
        }
        if (behaviour === 'redirect') {
          res.writeHead(302, { location: '/ok/redirected' }).end();
          return;
        }
        const status = behaviour === 'ok' ? 200 : behaviour === 'gone' ? 410 : 500;
        res
          .writeHead(status, { 'content-type': 'text/plain' })
          .end(behaviour === 'ok' ? 'thanks' : `${'x'.repeat(5000)}`);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  to(path: string): ReceivedRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  /** How many requests to `path` are open now (received, and neither answered nor given up by their sender). */
  openTo(path: string): number {
    return this.open.get(path)?.now ?? 0;
  }

  /** The most requests to `path` that were open at the same time. */
  peakOpen(path: string): number {
    return this.open.get(path)?.peak ?? 0;
  }

  /** Answers the `hang` requests still waiting (their senders have long given up). */
  release(): void {
    for (const res of this.hanging.splice(0)) if (!res.destroyed) res.writeHead(200).end('too late');
  }

  async stop(): Promise<void> {
    this.release();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
