import { createServer, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the receiver does with a request: answer 200, answer 500, answer 200 after `ms`, or hold it unanswered. */
export type ReceiverMode = { kind: 'ok' } | { kind: 'fail' } | { kind: 'delay'; ms: number } | { kind: 'hang' };

export interface Arrival {
  path: string;
  /** The envelope's id (`webhook-id`), its `created_at` and when it arrived (epoch ms). */
  id: string;
  createdAt: number;
  at: number;
  /** What the request was answered, or null while held / cut by the sender's timeout. */
  answered: number | null;
}

/**
 * A webhook receiver on 127.0.0.1 whose behaviour a test switches while deliveries flow (a store's
 * receiver that hangs, then recovers). It records every request, counts those in flight (from arrival
 * to answer or to the sender closing the connection) and the most ever in flight at once.
 */
export class SwitchableReceiver {
  readonly arrivals: Arrival[] = [];
  inFlight = 0;
  maxInFlight = 0;
  private mode: ReceiverMode = { kind: 'ok' };
  private server?: Server;
  private readonly held = new Set<ServerResponse>();

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const envelope = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; created_at: string };
        const arrival: Arrival = {
          path: req.url ?? '/',
          id: envelope.id,
          createdAt: Date.parse(envelope.created_at),
          at: Date.now(),
          answered: null,
        };
        this.arrivals.push(arrival);
        this.inFlight += 1;
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
        let done = false;
        const finish = () => {
          if (done) return;
          done = true;
          this.inFlight -= 1;
          this.held.delete(res);
        };
        res.on('close', finish);
        const answer = (status: number) => {
          if (res.destroyed) return;
          arrival.answered = status;
          res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'thanks' : 'unavailable');
        };
        const mode = this.mode;
        if (mode.kind === 'hang') this.held.add(res);
        else if (mode.kind === 'delay') setTimeout(() => answer(200), mode.ms).unref();
        else answer(mode.kind === 'ok' ? 200 : 500);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  /** From now on, requests get `mode`; requests held so far stay held until their sender gives up. */
  set(mode: ReceiverMode): void {
    this.mode = mode;
  }

  /** The requests to `path` (all of them without one). */
  to(path?: string): Arrival[] {
    return path === undefined ? this.arrivals : this.arrivals.filter((arrival) => arrival.path === path);
  }

  /** Distinct envelope ids answered 200 (to `path`). */
  delivered(path?: string): Set<string> {
    return new Set(
      this.to(path)
        .filter((arrival) => arrival.answered === 200)
        .map((arrival) => arrival.id),
    );
  }

  async stop(): Promise<void> {
    for (const res of this.held) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
