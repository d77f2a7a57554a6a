/** Base of every error `SafeHttpClient` throws: a message fit for a delivery log, no cause attached. */
export abstract class HttpClientError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * The URL may not be requested: not an absolute URL, wrong scheme, credentials in it, a host that
 * does not resolve, or one that resolves to (or is) an address the policy refuses. Thrown by
 * `assertUrl` and, for the address rules, again at connect time.
 *
 * The message reaches API callers (webhook registration, the delivery log, AI image fetches), so it
 * names only what the caller wrote: a literal IP host with its rule, but for a host name never the
 * address it resolved to nor which rule that address broke (that would let a caller probe internal
 * DNS). `host` and `address` say it for the server log; `SafeHttpClient` logs them as it refuses.
 */
export class UnsafeUrlError extends HttpClientError {
  constructor(
    /**
     * `invalid-url`, `scheme`, `credentials`, `unresolvable`, or an address reason of `isForbiddenAddress` (`loopback`,
     * `private`, …).
     */
    readonly reason: string,
    message: string,
    /** The refused address, for the address rules. Server log only: for a host name it is what the name resolved to. */
    readonly address?: string,
    /** The URL's host as written (brackets removed), for the address rules. */
    readonly host?: string,
  ) {
    super(message);
  }
}

/** No complete answer (headers and the part of the body that is read) within `timeoutMs`. */
export class HttpTimeoutError extends HttpClientError {
  constructor(readonly timeoutMs: number) {
    super(`no response within ${timeoutMs} ms`);
  }
}

/** The connection failed or broke (refused, reset, TLS failure, DNS failure at connect time). */
export class HttpConnectionError extends HttpClientError {
  constructor(
    message: string,
    /** The system or undici error code when there is one (`ECONNREFUSED`, `UND_ERR_SOCKET`, `ENOTFOUND`, …). */
    readonly code?: string,
  ) {
    super(message);
  }
}

/** A body read as a buffer (`readBody: 'buffer'`) is larger than `maxResponseBytes`. */
export class HttpResponseTooLargeError extends HttpClientError {
  constructor(readonly maxBytes: number) {
    super(`response body larger than ${maxBytes} bytes`);
  }
}
