import { once } from 'node:events';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import {
  HttpConnectionError,
  HttpResponseTooLargeError,
  HttpTimeoutError,
  SafeHttpClient,
  UnsafeUrlError,
  type HostResolver,
  type SafeHttpOptions,
} from '../libs/core/src/http-client/index.js';

/**
 * The SSRF guard and the limits of the shared outbound client, against real HTTP servers on
 * loopback. Every refusal test also counts TCP connections: "refused" means no connection was made
 * at all, so not one byte of the request reached the server. The control tests make the same
 * requests with private addresses allowed and see them arrive, so the counters can fail.
 */

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: string;
}

interface TestServer {
  port: number;
  /** TCP connections accepted. */
  connections: number;
  requests: Received[];
  close(): Promise<void>;
}

async function startServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end('ok'),
  host = '127.0.0.1',
): Promise<TestServer> {
  const state = { connections: 0, requests: [] as Received[] };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      state.requests.push({
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        raw,
        body: raw.toString('utf8'),
      });
      handler(req, res);
    });
  });
  server.on('connection', () => state.connections++);
  server.listen(0, host);
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    get connections() {
      return state.connections;
    },
    requests: state.requests,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** A resolver answering from a table, logging each call. */
function resolver(answers: Record<string, string[]>) {
  const calls: string[] = [];
  const lookup: HostResolver = async (hostname) => {
    calls.push(hostname);
    const addresses = answers[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { calls, lookup };
}

/** The refusal a caller sees for a host name that leads to a non-public address. */
const HIDDEN = (host: string) =>
  `url host ${host} points to an address that is not allowed (loopback, ` +
  `private, link-local, metadata or another non-public address)`;

/** Public on the first lookup, loopback afterwards: a DNS-rebinding attacker's name server. */
function rebinding() {
  let count = 0;
  const lookup: HostResolver = async () => [{ address: ++count === 1 ? '93.184.215.14' : '127.0.0.1', family: 4 }];
  return { lookup, calls: () => count };
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

const ipv6Available = await (async () => {
  const probe = createServer();
  try {
    probe.listen(0, '::');
    await once(probe, 'listening');
    probe.close();
    return true;
  } catch {
    return false;
  }
})();

describe('SafeHttpClient against real servers', () => {
  const clients: SafeHttpClient[] = [];
  const servers: TestServer[] = [];
  const client = (options: Partial<SafeHttpOptions>) => {
    const made = new SafeHttpClient({ allowPrivate: false, allowHttp: true, ...options });
    clients.push(made);
    return made;
  };
  const server = async (...args: Parameters<typeof startServer>) => {
    const started = await startServer(...args);
    servers.push(started);
    return started;
  };

  afterAll(async () => {
    await Promise.all(clients.map((made) => made.close()));
    await Promise.all(servers.map((started) => started.close()));
  });

  describe('with private addresses refused', () => {
    it('refuses http://127.0.0.1:<port> before connecting', async () => {
      const target = await server();
      const http = client({});
      const url = `http://127.0.0.1:${target.port}/hook`;

      const refused = await failure(http.assertUrl(url));
      expect(refused).toBeInstanceOf(UnsafeUrlError);
      expect((refused as UnsafeUrlError).reason).toBe('loopback');

      const posted = await failure(
        http.post(url, { body: '{"secret":true}', headers: { 'content-type': 'application/json' } }),
      );
      expect(posted).toBeInstanceOf(UnsafeUrlError);
      expect(posted.message).toBe('url host 127.0.0.1 is not allowed (loopback)');
      expect(await failure(http.get(url))).toBeInstanceOf(UnsafeUrlError);
      expect(target.connections).toBe(0);
      expect(target.requests).toEqual([]);
    });

    it('refuses http://localhost:<port> (system resolver) before connecting', async () => {
      const target = await server();
      const http = client({});
      const url = `http://localhost:${target.port}/`;
      const registered = await failure(http.assertUrl(url));
      expect(registered.message).toMatch(/^url host localhost points to an address that is not allowed/);
      expect(registered.message).not.toMatch(/127\.0\.0\.1|::1/);
      const posted = await failure(http.post(url, { body: 'x' }));
      expect(posted).toBeInstanceOf(UnsafeUrlError);
      expect((posted as UnsafeUrlError).reason).toMatch(/loopback/);
      expect(target.connections).toBe(0);
    });

    it('refuses a name that resolves to 127.0.0.1, at registration and at connect time', async () => {
      const target = await server();
      const dns = resolver({ 'evil.test': ['127.0.0.1'] });
      const http = client({ lookup: dns.lookup });
      const url = `http://evil.test:${target.port}/hook`;

      const registered = await failure(http.assertUrl(url));
      expect(registered).toBeInstanceOf(UnsafeUrlError);
      expect(registered.message).toBe(HIDDEN('evil.test'));

      const posted = await failure(http.post(url, { body: 'x' }));
      expect(posted).toBeInstanceOf(UnsafeUrlError);
      expect(posted.message).toBe(HIDDEN('evil.test'));
      expect((posted as UnsafeUrlError).address).toBe('127.0.0.1');
      expect(dns.calls).toEqual(['evil.test', 'evil.test']);
      expect(target.connections).toBe(0);
    });

    it('tells the caller nothing of what a private name resolves to, and logs it for the server', async () => {
      const warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      try {
        const dns = resolver({ 'intranet.test': ['93.184.215.14', '10.0.0.5'] });
        const http = client({ lookup: dns.lookup });
        for (const attempt of [
          () => http.assertUrl('http://intranet.test/'),
          () => http.get('http://intranet.test/'),
        ]) {
          const refused = (await failure(attempt())) as UnsafeUrlError;
          expect(refused).toBeInstanceOf(UnsafeUrlError);
          expect(refused.message).toBe(HIDDEN('intranet.test'));
          expect(refused.message).not.toMatch(/10\.0|\(private\)/);
          expect(refused.reason).toBe('private');
          expect(refused.address).toBe('10.0.0.5');
        }
        expect(warn).toHaveBeenCalledTimes(2);
        expect(warn).toHaveBeenCalledWith(
          { host: 'intranet.test', address: '10.0.0.5', reason: 'private', stage: 'resolved' },
          'outbound URL refused by the address policy',
        );
      } finally {
        warn.mockRestore();
      }
    });

    it('refuses at connect time a name that rebinds to 127.0.0.1 after passing registration', async () => {
      const target = await server();
      const dns = rebinding();
      const http = client({ lookup: dns.lookup });
      const url = `http://rebind.test:${target.port}/hook`;

      await expect(http.assertUrl(url)).resolves.toBeUndefined();
      const posted = await failure(http.post(url, { body: 'x', timeoutMs: 2000 }));
      expect(posted).toBeInstanceOf(UnsafeUrlError);
      expect((posted as UnsafeUrlError).reason).toBe('loopback');
      expect((posted as UnsafeUrlError).address).toBe('127.0.0.1');
      // What the delivery log would show the merchant: not where their name pointed this time.
      expect(posted.message).toBe(HIDDEN('rebind.test'));
      expect(dns.calls()).toBe(2);
      expect(target.connections).toBe(0);
    });

    it('refuses on the https path too (TLS connections resolve through the same guard)', async () => {
      const target = await server();
      const dns = resolver({ 'evil.test': ['127.0.0.1'] });
      const http = client({ allowHttp: false, lookup: dns.lookup });
      expect(await failure(http.post(`https://evil.test:${target.port}/`, { body: 'x' }))).toBeInstanceOf(
        UnsafeUrlError,
      );
      expect(await failure(http.post(`https://127.0.0.1:${target.port}/`, { body: 'x' }))).toBeInstanceOf(
        UnsafeUrlError,
      );
      expect(dns.calls).toEqual(['evil.test']);
      expect(target.connections).toBe(0);
    });

    it.skipIf(!ipv6Available)('refuses IPv6 loopback and IPv4-mapped loopback literals before connecting', async () => {
      const target = await server(undefined, '::'); // dual stack: reachable as ::1 and ::ffff:127.0.0.1
      const http = client({});
      for (const host of ['[::1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]']) {
        const posted = await failure(http.post(`http://${host}:${target.port}/`, { body: 'x' }));
        expect(posted, host).toBeInstanceOf(UnsafeUrlError);
      }
      expect(target.connections).toBe(0);

      // Control: the same URLs do reach the server when private addresses are allowed.
      const open = client({ allowPrivate: true });
      for (const host of ['[::1]', '[::ffff:127.0.0.1]']) {
        expect((await open.post(`http://${host}:${target.port}/`, { body: 'x' })).status).toBe(200);
      }
      expect(target.requests).toHaveLength(2);
    });

    it('control: the same requests arrive when private addresses are allowed', async () => {
      const target = await server();
      const dns = resolver({ 'evil.test': ['127.0.0.1'] });
      const open = client({ allowPrivate: true, lookup: dns.lookup });
      await expect(open.assertUrl(`http://evil.test:${target.port}/hook`)).resolves.toBeUndefined();
      const response = await open.post(`http://evil.test:${target.port}/hook`, {
        body: '{"a":1}',
        headers: { 'content-type': 'application/json' },
      });
      expect(response.status).toBe(200);
      const system = client({ allowPrivate: true }); // the system resolver, as in production
      expect((await system.post(`http://127.0.0.1:${target.port}/`, { body: 'x' })).status).toBe(200);
      expect((await system.post(`http://localhost:${target.port}/`, { body: 'x' })).status).toBe(200);
      expect(target.requests.map((request) => request.headers.host)).toEqual([
        `evil.test:${target.port}`,
        `127.0.0.1:${target.port}`,
        `localhost:${target.port}`,
      ]);
      expect(target.connections).toBeGreaterThan(0);
    });
  });

  describe('with private addresses and http allowed', () => {
    it('posts the exact body and headers and returns the answer', async () => {
      const target = await server((_req, res) => {
        res.writeHead(201, { 'content-type': 'application/json', 'x-trace': 'abc' });
        res.end('{"received":true}');
      });
      const http = client({ allowPrivate: true });
      const body = '{"id":"evt_1","event":"order.created","data":{"name":"Zoë"}}';
      const response = await http.post(`http://127.0.0.1:${target.port}/hook?x=1`, {
        headers: { 'content-type': 'application/json', 'x-service-signature': 'deadbeef' },
        body,
        timeoutMs: 2000,
      });
      expect(response.status).toBe(201);
      expect(response.headers['content-type']).toBe('application/json');
      expect(response.headers['x-trace']).toBe('abc');
      expect(response.bodyExcerpt).toBe('{"received":true}');
      expect(response.truncated).toBe(false);
      expect(response.durationMs).toBeGreaterThanOrEqual(0);
      expect(response.durationMs).toBeLessThan(2000);

      expect(target.requests).toHaveLength(1);
      const [received] = target.requests;
      expect(received.method).toBe('POST');
      expect(received.url).toBe('/hook?x=1');
      expect(received.body).toBe(body);
      expect(received.headers['content-type']).toBe('application/json');
      expect(received.headers['x-service-signature']).toBe('deadbeef');
      expect(received.headers['content-length']).toBe(String(Buffer.byteLength(body)));

      const binary = Buffer.from([0x00, 0xff, 0x10]);
      await http.post(`http://127.0.0.1:${target.port}/bin`, { body: binary });
      expect(target.requests[1].raw.equals(binary)).toBe(true);
      expect(target.requests[1].headers['content-length']).toBe('3');
    });

    it('reads only maxResponseBytes of an endless body and drops the connection', async () => {
      let responseClosed!: (ended: boolean) => void;
      const closed = new Promise<boolean>((resolve) => (responseClosed = resolve));
      const target = await server((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(16 * 1024, 'a');
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
        };
        res.on('drain', pump);
        res.on('close', () => responseClosed(res.writableEnded));
        pump();
      });
      const http = client({ allowPrivate: true });
      const response = await http.post(`http://127.0.0.1:${target.port}/`, { body: 'x', timeoutMs: 5000 });
      expect(response.status).toBe(200);
      expect(response.bodyExcerpt).toBe('a'.repeat(4096));
      expect(response.truncated).toBe(true);
      // The server's endless response ends because the client hung up, not because it finished.
      expect(await closed).toBe(false);
    });

    it('honours maxResponseBytes on a large finite body and keeps whole UTF-8 characters', async () => {
      const target = await server((req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(req.url === '/utf8' ? 'é'.repeat(100_000) : 'b'.repeat(1024 * 1024));
      });
      const http = client({ allowPrivate: true });
      const large = await http.post(`http://127.0.0.1:${target.port}/`, { body: 'x', maxResponseBytes: 1000 });
      expect(large.bodyExcerpt).toBe('b'.repeat(1000));
      expect(large.truncated).toBe(true);

      const accents = await http.get(`http://127.0.0.1:${target.port}/utf8`, { maxResponseBytes: 4095 });
      expect(accents.bodyExcerpt).toBe('é'.repeat(2047)); // 4094 bytes; the half character is dropped
      expect(accents.bodyExcerpt).not.toContain('\ufffd');
      expect(accents.truncated).toBe(true);

      const exact = await http.get(`http://127.0.0.1:${target.port}/utf8`, { maxResponseBytes: 200_000 });
      expect(exact.bodyExcerpt).toBe('é'.repeat(100_000));
      expect(exact.truncated).toBe(false);
    });

    it('returns a 302 as it is and never contacts the Location target', async () => {
      const elsewhere = await server();
      const redirecting = await server((_req, res) => {
        res.writeHead(302, { location: `http://127.0.0.1:${elsewhere.port}/target` });
        res.end('moved');
      });
      const http = client({ allowPrivate: true });
      const response = await http.post(`http://127.0.0.1:${redirecting.port}/hook`, { body: 'x' });
      expect(response.status).toBe(302);
      expect(response.headers.location).toBe(`http://127.0.0.1:${elsewhere.port}/target`);
      expect(response.bodyExcerpt).toBe('moved');
      const fetched = await http.get(`http://127.0.0.1:${redirecting.port}/hook`);
      expect(fetched.status).toBe(302);
      expect(redirecting.requests).toHaveLength(2);
      expect(elsewhere.connections).toBe(0);
      expect(elsewhere.requests).toEqual([]);
    });

    it('gives up on a server that never answers with HttpTimeoutError after timeoutMs', async () => {
      const silent = await server(() => undefined);
      const http = client({ allowPrivate: true });
      const started = Date.now();
      const error = await failure(http.post(`http://127.0.0.1:${silent.port}/`, { body: 'x', timeoutMs: 300 }));
      const waited = Date.now() - started;
      expect(error).toBeInstanceOf(HttpTimeoutError);
      expect((error as HttpTimeoutError).timeoutMs).toBe(300);
      expect(error.message).toBe('no response within 300 ms');
      expect(waited).toBeGreaterThanOrEqual(290);
      expect(waited).toBeLessThan(2000);
      expect(silent.requests).toHaveLength(1); // it was the silence, not a refusal
    });

    it('counts the body in the timeout: headers then a trickle never finishes', async () => {
      const trickling = await server((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const timer = setInterval(() => res.write('.'), 50);
        res.on('close', () => clearInterval(timer));
      });
      const http = client({ allowPrivate: true });
      const started = Date.now();
      const error = await failure(http.get(`http://127.0.0.1:${trickling.port}/`, { timeoutMs: 300 }));
      expect(error).toBeInstanceOf(HttpTimeoutError);
      expect(Date.now() - started).toBeLessThan(2000);
    });

    it('reports a refused connection as HttpConnectionError with its code and no cause', async () => {
      const gone = await startServer();
      const port = gone.port;
      await gone.close();
      const http = client({ allowPrivate: true });
      const error = await failure(http.post(`http://127.0.0.1:${port}/`, { body: 'x' }));
      expect(error).toBeInstanceOf(HttpConnectionError);
      expect((error as HttpConnectionError).code).toBe('ECONNREFUSED');
      expect(error.message).toContain('ECONNREFUSED');
      expect(error.cause).toBeUndefined();
    });

    it('reports a connection the server drops as HttpConnectionError', async () => {
      const rude = await server((req) => req.socket.destroy());
      const http = client({ allowPrivate: true });
      const error = await failure(http.post(`http://127.0.0.1:${rude.port}/`, { body: 'x' }));
      expect(error).toBeInstanceOf(HttpConnectionError);
      expect(rude.requests).toHaveLength(1);
    });

    it('reads a whole body as a Buffer with its content type, refusing one over maxResponseBytes', async () => {
      const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(2000, 7)]);
      const images = await server((req, res) => {
        if (req.url === '/chunked') {
          res.writeHead(200, { 'content-type': 'image/png' }); // no length: read until the limit
          res.write(png);
          res.end(png);
          return;
        }
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(png.length) });
        res.end(png);
      });
      const http = client({ allowPrivate: true });
      const fetched = await http.get(`http://127.0.0.1:${images.port}/image`, {
        readBody: 'buffer',
        maxResponseBytes: 10_000,
      });
      expect(Buffer.isBuffer(fetched.body)).toBe(true);
      expect(fetched.body.equals(png)).toBe(true);
      expect(fetched.contentType).toBe('image/png');

      const declared = await failure(
        http.get(`http://127.0.0.1:${images.port}/image`, { readBody: 'buffer', maxResponseBytes: 1000 }),
      );
      expect(declared).toBeInstanceOf(HttpResponseTooLargeError);
      const streamed = await failure(
        http.get(`http://127.0.0.1:${images.port}/chunked`, { readBody: 'buffer', maxResponseBytes: 3000 }),
      );
      expect(streamed).toBeInstanceOf(HttpResponseTooLargeError);
      const fits = await http.get(`http://127.0.0.1:${images.port}/chunked`, {
        readBody: 'buffer',
        maxResponseBytes: 4008,
      });
      expect(fits.body.length).toBe(png.length * 2);
    });
  });

  describe('with http not allowed', () => {
    it('requires https and sends nothing over http', async () => {
      const target = await server();
      const http = client({ allowPrivate: true, allowHttp: false });
      const url = `http://127.0.0.1:${target.port}/`;
      const registered = await failure(http.assertUrl(url));
      expect(registered).toBeInstanceOf(UnsafeUrlError);
      expect((registered as UnsafeUrlError).reason).toBe('scheme');
      expect(registered.message).toBe('url must use https');
      const posted = await failure(http.post(url, { body: 'x' }));
      expect(posted).toBeInstanceOf(UnsafeUrlError);
      expect((posted as UnsafeUrlError).reason).toBe('scheme');
      await expect(http.assertUrl(`https://127.0.0.1:${target.port}/`)).resolves.toBeUndefined();
      expect(target.connections).toBe(0);
    });
  });
});
