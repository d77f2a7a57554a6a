import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Agent, buildConnector, errors as undiciErrors, request as undiciRequest } from 'undici';
import { isForbiddenAddress } from './address-policy.js';
import { HttpClientError, HttpConnectionError, HttpTimeoutError, UnsafeUrlError } from './http-client.errors.js';
import { flattenHeaders, readAll, readExcerpt } from './response-body.js';
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TIMEOUT_MS,
  SAFE_HTTP_OPTIONS,
  type BufferOptions,
  type ExcerptOptions,
  type HostResolver,
  type HttpBufferResponse,
  type HttpExcerptResponse,
  type HttpMethod,
  type HttpRequestOptions,
  type ResolvedAddress,
  type SafeHttpOptions,
} from './safe-http.types.js';

const defaultResolver: HostResolver = (hostname) => dnsLookup(hostname, { all: true });

/**
 * What a caller is told when a host name leads to a refused address. Neither the address nor the
 * rule it broke: both would tell the caller what an internal name resolves to.
 */
export function hiddenAddressMessage(host: string): string {
  return (
    `url host ${host} points to an address that is not allowed (loopback, ` +
    `private, link-local, metadata or another non-public address)`
  );
}

/**
 * The one way out to the internet for webhooks, AI providers and social platforms.
 *
 * SSRF guard: `assertUrl` checks a URL when it is registered; every connection is checked again
 * where it is made. The agent's connector refuses literal IP hosts the policy forbids, resolves
 * names itself (through `lookup`) and refuses the connection when any address is forbidden, then
 * connects to exactly the addresses it checked, so a DNS answer that changes between the check and
 * the connection (rebinding) cannot slip through. As a last net the connected socket's peer
 * address is checked before the request is written.
 *
 * Never follows redirects (a 3xx is returned as it is), bounds every exchange by `timeoutMs`, and
 * reads at most `maxResponseBytes` of a body.
 */
@Injectable()
export class SafeHttpClient implements OnApplicationShutdown {
  private readonly logger = new Logger(SafeHttpClient.name);
  private readonly resolver: HostResolver;
  private readonly agent: Agent;

  constructor(@Inject(SAFE_HTTP_OPTIONS) private readonly options: SafeHttpOptions) {
    this.resolver = options.lookup ?? defaultResolver;
    const connect = buildConnector({ timeout: options.connectTimeoutMs ?? 10_000, lookup: this.guardedLookup });
    this.agent = new Agent({
      connect: (target, callback) => {
        const refused = this.refuseLiteral(target.hostname);
        if (refused) return callback(refused, null);
        connect(target, (error, socket) => {
          if (error) return callback(error, null);
          const late = this.refusePeer(target.hostname, socket!);
          if (late) {
            socket!.destroy();
            return callback(late, null);
          }
          callback(null, socket!);
        });
      },
    });
  }

  /**
   * Refuses (with `UnsafeUrlError`) a URL that is not absolute, not https (or http when allowed),
   * carries credentials, does not resolve, or resolves to any forbidden address (unless private
   * addresses are allowed). For registration; requests are checked again at connect time.
   */
  async assertUrl(url: string): Promise<void> {
    const target = this.parseUrl(url);
    const host = bareHost(target.hostname);
    if (isIP(host)) {
      const refused = this.refuseLiteral(host);
      if (refused) throw refused;
      return;
    }
    await this.resolveChecked(host, this.options.resolveTimeoutMs ?? 5000).catch((error: unknown) => {
      if (error instanceof UnsafeUrlError) throw error;
      const code = (error as { code?: unknown }).code;
      throw new UnsafeUrlError(
        'unresolvable',
        `url host ${host} does not resolve${typeof code === 'string' ? ` (${code})` : ''}`,
      );
    });
  }

  post(url: string, options: BufferOptions): Promise<HttpBufferResponse>;
  post(url: string, options?: ExcerptOptions): Promise<HttpExcerptResponse>;
  post(url: string, options: HttpRequestOptions = {}): Promise<HttpExcerptResponse | HttpBufferResponse> {
    return this.send('POST', url, options);
  }

  get(url: string, options: BufferOptions): Promise<HttpBufferResponse>;
  get(url: string, options?: ExcerptOptions): Promise<HttpExcerptResponse>;
  get(url: string, options: HttpRequestOptions = {}): Promise<HttpExcerptResponse | HttpBufferResponse> {
    return this.send('GET', url, options);
  }

  request(method: HttpMethod, url: string, options: BufferOptions): Promise<HttpBufferResponse>;
  request(method: HttpMethod, url: string, options?: ExcerptOptions): Promise<HttpExcerptResponse>;
  request(
    method: HttpMethod,
    url: string,
    options: HttpRequestOptions = {},
  ): Promise<HttpExcerptResponse | HttpBufferResponse> {
    return this.send(method, url, options);
  }

  /** Closes the pooled connections. */
  async close(): Promise<void> {
    await this.agent.close();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.agent.destroy();
  }

  private async send(
    method: HttpMethod,
    url: string,
    options: HttpRequestOptions,
  ): Promise<HttpExcerptResponse | HttpBufferResponse> {
    const target = this.parseUrl(url);
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const limit = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    const abort = new AbortController();
    // The error is made only when the time is up: an Error's stack costs every request that answers in time.
    const timer = setTimeout(() => abort.abort(new HttpTimeoutError(timeoutMs)), timeoutMs);
    const started = performance.now();
    try {
      const response = await undiciRequest(target, {
        method,
        headers: options.headers,
        body: options.body,
        dispatcher: this.agent,
        signal: abort.signal,
      });
      const meta = () => ({
        status: response.statusCode,
        headers: flattenHeaders(response.headers),
        durationMs: elapsed(started),
      });
      if (options.readBody === 'buffer') {
        const body = await readAll(response, limit);
        const contentType = response.headers['content-type'];
        return { ...meta(), body, contentType: typeof contentType === 'string' ? contentType : null };
      }
      const { excerpt, truncated } = await readExcerpt(response.body, limit);
      return { ...meta(), bodyExcerpt: excerpt, truncated };
    } catch (error) {
      if (error instanceof HttpClientError) throw error;
      if (abort.signal.aborted) throw abort.signal.reason as HttpTimeoutError;
      // The caller's mistake (e.g. a forbidden header), not the network's.
      if (error instanceof undiciErrors.InvalidArgumentError) throw error;
      throw connectionError(error);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Absolute URL, allowed scheme, no credentials. */
  private parseUrl(url: string): URL {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      throw new UnsafeUrlError('invalid-url', 'url must be a valid absolute URL');
    }
    const schemes = this.options.allowHttp ? ['https:', 'http:'] : ['https:'];
    if (!schemes.includes(target.protocol)) {
      throw new UnsafeUrlError('scheme', this.options.allowHttp ? 'url must use https or http' : 'url must use https');
    }
    if (target.username || target.password) throw new UnsafeUrlError('credentials', 'url must not contain credentials');
    if (!target.hostname) throw new UnsafeUrlError('invalid-url', 'url must have a host');
    return target;
  }

  /** The refusal for a literal IP host the policy forbids; null for names and allowed addresses. */
  private refuseLiteral(hostname: string): UnsafeUrlError | null {
    const host = bareHost(hostname);
    if (this.options.allowPrivate || !isIP(host)) return null;
    const reason = isForbiddenAddress(host);
    if (!reason) return null;
    // The caller wrote this address, so naming it and its rule tells them nothing new.
    return this.refused(
      new UnsafeUrlError(reason, `url host ${host} is not allowed (${reason})`, host, host),
      'literal',
    );
  }

  /** Checks the address the socket actually connected to. */
  private refusePeer(hostname: string, socket: Socket): UnsafeUrlError | null {
    if (this.options.allowPrivate) return null;
    const host = bareHost(hostname);
    const peer = socket.remoteAddress;
    if (!peer) return new UnsafeUrlError('unresolvable', `url host ${host}: connected peer address unknown`);
    const reason = isForbiddenAddress(peer);
    return reason
      ? this.refused(new UnsafeUrlError(reason, hiddenAddressMessage(host), peer, host), 'connected')
      : null;
  }

  /** All addresses of `hostname`, refused when any is forbidden (unless private addresses are allowed). */
  private async resolveChecked(hostname: string, timeoutMs?: number): Promise<ResolvedAddress[]> {
    const addresses = await withTimeout(this.resolver(hostname), timeoutMs, hostname);
    if (addresses.length === 0)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    if (!this.options.allowPrivate) {
      for (const { address } of addresses) {
        const reason = isForbiddenAddress(address);
        if (reason)
          throw this.refused(new UnsafeUrlError(reason, hiddenAddressMessage(hostname), address, hostname), 'resolved');
      }
    }
    return addresses;
  }

  /**
   * Logs an address refusal with what the caller is not told (the address, the rule), then hands it back to be thrown.
   */
  private refused(error: UnsafeUrlError, stage: 'literal' | 'resolved' | 'connected'): UnsafeUrlError {
    this.logger.warn(
      { host: error.host, address: error.address, reason: error.reason, stage },
      'outbound URL refused by the address policy',
    );
    return error;
  }

  /** `net.connect`'s lookup: the addresses it connects to are the ones checked here. */
  private readonly guardedLookup: LookupFunction = (hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family || 0;
    this.resolveChecked(hostname).then(
      (all) => {
        const addresses = family ? all.filter((entry) => entry.family === family) : all;
        if (addresses.length === 0) {
          callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '');
        } else if (options.all) {
          callback(
            null,
            addresses.map(({ address, family }) => ({ address, family })),
          );
        } else {
          callback(null, addresses[0].address, addresses[0].family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}

function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}

async function withTimeout<T>(promise: Promise<T>, timeoutMs: number | undefined, hostname: string): Promise<T> {
  if (timeoutMs === undefined) return promise;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error(`getaddrinfo timed out ${hostname}`), { code: 'ETIMEOUT' })),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

function connectionError(error: unknown): HttpConnectionError {
  const first = error instanceof AggregateError && error.errors.length > 0 ? error.errors[0] : error;
  const { message, code } = (first ?? {}) as { message?: unknown; code?: unknown };
  const text = typeof message === 'string' && message ? message : typeof code === 'string' ? code : 'connection failed';
  return new HttpConnectionError(text, typeof code === 'string' ? code : undefined);
}
