import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';

export interface ServedFile {
  status?: number;
  headers?: Record<string, string>;
  body: Buffer | string;
  /** Answer only once `release()` is called: a request in flight for as long as a test needs. */
  hold?: boolean;
}

/** A photo whose left half is red and right half blue, so its dominant colours are known. */
export async function twoColourPhoto(format: 'png' | 'jpeg' | 'webp', width = 400, height = 300): Promise<Buffer> {
  const half = Math.floor(width / 2);
  const left = await sharp({ create: { width: half, height, channels: 3, background: '#e11d48' } })
    .png()
    .toBuffer();
  const right = await sharp({ create: { width: width - half, height, channels: 3, background: '#1d4ed8' } })
    .png()
    .toBuffer();
  return sharp({ create: { width, height, channels: 3, background: '#000000' } })
    .composite([
      { input: left, left: 0, top: 0 },
      { input: right, left: half, top: 0 },
    ])
    [format]()
    .toBuffer();
}

/** Serves fixed files on 127.0.0.1, by path; anything else answers 404. Counts requests per path. */
export class ImageServer {
  readonly hits = new Map<string, number>();
  private held: (() => void)[] = [];
  private server?: Server;
  url = '';

  constructor(private readonly files: Record<string, ServedFile>) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const path = req.url ?? '/';
      this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
      const file = this.files[path];
      if (!file) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
      const answer = () => void res.writeHead(file.status ?? 200, file.headers ?? {}).end(file.body);
      if (file.hold) this.held.push(answer);
      else answer();
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
    return this;
  }

  /** Answers the requests held so far. */
  release(): void {
    const held = this.held;
    this.held = [];
    for (const answer of held) answer();
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
