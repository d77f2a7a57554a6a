// What SafeHttpClient is built with, is asked and returns.

export interface ResolvedAddress {
  address: string;
  /** 4 or 6. */
  family: number;
}

/** Resolves a host name to all its addresses (as `dns.promises.lookup(host, { all: true })`). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface SafeHttpOptions {
  /** Allow loopback, private, link-local, metadata… addresses (development and tests only). */
  allowPrivate: boolean;
  /** Allow `http:` URLs as well as `https:` (development and tests only). */
  allowHttp: boolean;
  /** Name resolution, at registration and at every connect. Default: `dns.promises.lookup` (all addresses). */
  lookup?: HostResolver;
  /** Longest wait for the TCP (and TLS) connection. Default 10 s; a request's `timeoutMs` bounds it too. */
  connectTimeoutMs?: number;
  /** Longest wait for name resolution in `assertUrl`. Default 5 s. */
  resolveTimeoutMs?: number;
}

/** Injection token of the `SafeHttpOptions` that `SafeHttpClient` is built with. */
export const SAFE_HTTP_OPTIONS = Symbol('SAFE_HTTP_OPTIONS');

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HttpRequestOptions {
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Hard limit for the whole exchange: connect, headers and the body that is read. Default 10 000. */
  timeoutMs?: number;
  /** Most body bytes read. `excerpt`: the rest is dropped; `buffer`: more is an error. Default 4096. */
  maxResponseBytes?: number;
  /** `excerpt` (default): a UTF-8 excerpt; `buffer`: the whole body as bytes, with its content type. */
  readBody?: 'excerpt' | 'buffer';
}

export interface HttpResponseMeta {
  status: number;
  /** Lower-case names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  durationMs: number;
}

export interface HttpExcerptResponse extends HttpResponseMeta {
  /** At most `maxResponseBytes` bytes of the body, decoded as UTF-8 (an incomplete last character is dropped). */
  bodyExcerpt: string;
  /** The body was longer than `maxResponseBytes`. */
  truncated: boolean;
}

export interface HttpBufferResponse extends HttpResponseMeta {
  body: Buffer;
  contentType: string | null;
}

export type ExcerptOptions = HttpRequestOptions & { readBody?: 'excerpt' };
export type BufferOptions = HttpRequestOptions & { readBody: 'buffer' };

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 4096;
