import type { SocialPlatformId } from './registry.js';
import { PlatformError, type PlatformErrorKind } from './social-platform.js';

/**
 * Calls to a platform's API with plain `fetch` (the URLs are the operator's configuration, not the
 * merchant's), bounded by a timeout, and the one place where a failure becomes a classified
 * `PlatformError` (docs/architecture.md § Social publishing).
 */

/** What a platform's error body says, as its reader understands it. */
export interface PlatformFailure {
  /** The platform's own message, for the merchant (trimmed and redacted before use). */
  message?: string;
  /** The platform's own error code or type (`invalid_grant`, `190`, `spam_risk_too_many_posts`). */
  code?: string;
  /** Overrides the class the HTTP status implies (Meta's code 190 on a 400 is an expired token). */
  kind?: PlatformErrorKind;
}

/**
 * Reads a platform's error body. Called for every answer that is not 2xx, and for 2xx answers too:
 * a platform that reports errors inside a 200 (TikTok) returns non-null there; others return null.
 */
export type FailureReader = (body: any, status: number) => PlatformFailure | null;

export interface PlatformCall {
  method?: 'GET' | 'POST' | 'PUT';
  query?: Record<string, string | number | undefined>;
  /** A JSON body. */
  json?: unknown;
  /** An `application/x-www-form-urlencoded` body (undefined values left out). */
  form?: Record<string, string | undefined>;
  /** Raw bytes, sent with `contentType`. */
  bytes?: Buffer;
  contentType?: string;
  bearer?: string;
  /** HTTP Basic client authentication: client id and secret. */
  basic?: { id: string; secret: string };
  headers?: Record<string, string>;
  /**
   * A timeout or a connection broken after sending cannot have published anything (reads, media
   * containers, uploads): it is `transient`. Otherwise (the default for every method but GET) it is
   * `unknown_outcome`, never retried blindly.
   */
  harmless?: boolean;
  /** Strings never to repeat in an error message (the tokens and secrets of this call). */
  secrets?: (string | null | undefined)[];
  /** Overrides SOCIAL_HTTP_TIMEOUT_MS for this call (a large upload). */
  timeoutMs?: number;
}

export interface PlatformAnswer {
  status: number;
  headers: Headers;
  /** Parsed JSON, or undefined when the body is not JSON. */
  body: any;
}

const MAX_MESSAGE = 300;
const MAX_RETRY_AFTER_MS = 24 * 3600_000;
/** Errors that mean nothing was sent: the request cannot have reached the platform. */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

export class PlatformHttp {
  constructor(
    private readonly platform: SocialPlatformId,
    /** Human name, for messages ("X", "TikTok"). */
    private readonly name: string,
    private readonly timeoutMs: number,
    private readonly readFailure: FailureReader,
  ) {}

  /** The answer of a 2xx call; anything else throws a classified `PlatformError`. */
  async call(url: string, call: PlatformCall = {}): Promise<PlatformAnswer> {
    const method = call.method ?? 'GET';
    const target = new URL(url);
    for (const [key, value] of Object.entries(call.query ?? {}))
      if (value !== undefined) target.searchParams.set(key, String(value));
    const headers: Record<string, string> = { accept: 'application/json', ...call.headers };
    let body: string | Buffer | undefined;
    if (call.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(call.json);
    } else if (call.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = formBody(call.form);
    } else if (call.bytes) {
      headers['content-type'] = call.contentType ?? 'application/octet-stream';
      body = call.bytes;
    }
    if (call.bearer) headers.authorization = `Bearer ${call.bearer}`;
    if (call.basic) {
      const credentials = `${encodeURIComponent(call.basic.id)}:${encodeURIComponent(call.basic.secret)}`;
      headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
    }

    const timeoutMs = call.timeoutMs ?? this.timeoutMs;
    let response: Response;
    let text: string;
    try {
      response = await fetch(target, {
        method,
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      throw this.networkError(error, call.harmless ?? method === 'GET', timeoutMs);
    }
    const answer: PlatformAnswer = { status: response.status, headers: response.headers, body: parseJson(text) };
    const ok = response.status >= 200 && response.status < 300;
    const failure = this.readFailure(answer.body, response.status);
    if (ok && !failure) return answer;
    throw this.failure(answer, failure ?? {}, call.secrets ?? []);
  }

  /** A classified error for an answer that failed (also usable by a platform for a failure it detects itself). */
  failure(
    answer: Pick<PlatformAnswer, 'status' | 'headers'>,
    failure: PlatformFailure,
    secrets: (string | null | undefined)[] = [],
  ): PlatformError {
    const kind = failure.kind ?? kindOfStatus(answer.status);
    const said = failure.message ? redact(failure.message, secrets) : '';
    const code = codeOf(this.platform, kind, failure.code);
    switch (kind) {
      case 'rate_limited':
        return new PlatformError(`${this.name} rate limit reached${said ? `: ${said}` : ''}`, kind, code, {
          retryAfterMs: retryAfterMs(answer.headers),
        });
      case 'auth_expired':
        return new PlatformError(
          `${this.name} no longer accepts the access token${said ? `: ${said}` : ''}`,
          kind,
          code,
        );
      case 'transient':
        return new PlatformError(
          `${this.name} is unavailable (HTTP ${answer.status})${said ? `: ${said}` : ''}`,
          kind,
          code,
          {
            retryAfterMs: retryAfterMs(answer.headers),
          },
        );
      default:
        return new PlatformError(
          said ? `${this.name}: ${said}` : `${this.name} refused the request (HTTP ${answer.status})`,
          kind,
          code,
        );
    }
  }

  private networkError(error: unknown, harmless: boolean, timeoutMs: number): PlatformError {
    const name = (error as { name?: string }).name;
    if (name === 'TimeoutError' || name === 'AbortError') {
      return harmless
        ? new PlatformError(`${this.name} did not answer within ${timeoutMs} ms`, 'transient', 'platform_timeout')
        : new PlatformError(
            `${this.name} did not answer within ${timeoutMs} ms; the outcome is unknown`,
            'unknown_outcome',
            'unknown_outcome',
          );
    }
    const code = errorCode(error);
    if ((code && NOT_SENT.has(code)) || harmless) {
      return new PlatformError(
        `${this.name} could not be reached${code ? ` (${code})` : ''}`,
        'transient',
        'platform_unreachable',
      );
    }
    return new PlatformError(
      `The connection to ${this.name} broke${code ? ` (${code})` : ''}; the outcome is unknown`,
      'unknown_outcome',
      'unknown_outcome',
    );
  }
}

/** 401 → auth_expired; 429 → rate_limited; 408 and 5xx → transient; any other status → rejected. */
export function kindOfStatus(status: number): PlatformErrorKind {
  if (status === 401) return 'auth_expired';
  if (status === 429) return 'rate_limited';
  if (status === 408 || status >= 500) return 'transient';
  return 'rejected';
}

function codeOf(platform: SocialPlatformId, kind: PlatformErrorKind, platformCode: string | undefined): string {
  switch (kind) {
    case 'rate_limited':
      return 'rate_limited';
    case 'auth_expired':
      return 'token_expired';
    case 'transient':
      return 'platform_unavailable';
    case 'unknown_outcome':
      return 'unknown_outcome';
    case 'reauthorize':
      return 'reauthorize_required';
    default: {
      const slug = (platformCode ?? '')
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '_')
        .replace(/^_+|_+$/g, '')
        .slice(0, 60);
      return slug ? `${platform}_${slug}` : `${platform}_rejected`;
    }
  }
}

/**
 * Milliseconds from `Retry-After` (seconds or an HTTP date) or, failing that, X's
 * `x-rate-limit-reset` (epoch seconds); undefined when neither is usable.
 */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const clamp = (ms: number) => Math.min(Math.max(0, Math.ceil(ms)), MAX_RETRY_AFTER_MS);
  const retryAfter = headers.get('retry-after')?.trim();
  if (retryAfter) {
    if (/^\d+(\.\d+)?$/.test(retryAfter)) return clamp(Number(retryAfter) * 1000);
    const at = Date.parse(retryAfter);
    if (!Number.isNaN(at)) return clamp(at - now);
  }
  const reset = headers.get('x-rate-limit-reset')?.trim();
  if (reset && /^\d+$/.test(reset)) return clamp(Number(reset) * 1000 - now);
  return undefined;
}

/** The message trimmed to one short line, with every secret of the call replaced. */
export function redact(message: string, secrets: (string | null | undefined)[]): string {
  let out = message;
  for (const secret of secrets) if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]');
  out = out.replace(/\s+/g, ' ').trim();
  return out.length > MAX_MESSAGE ? `${out.slice(0, MAX_MESSAGE - 1)}…` : out;
}

function formBody(form: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(form)) if (value !== undefined) params.set(key, value);
  return params.toString();
}

function errorCode(error: unknown): string | undefined {
  for (let current: any = error, depth = 0; current && depth < 5; current = current.cause, depth++) {
    if (typeof current.code === 'string') return current.code;
  }
  return undefined;
}

function parseJson(text: string): any {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Waits `ms` (between polls of a platform's processing status). */
export const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
