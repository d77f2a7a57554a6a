import { hash } from 'node:crypto';
import { Injectable, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerLimitDetail,
  type ThrottlerModuleOptions,
  type ThrottlerOptions,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpConfig } from '../config/http.config.js';
import { BoundedCache } from '../crypto/bounded-cache.js';
import { MemoisedReflector } from '../tenancy/memoised-reflector.js';
import { ApiError } from '../errors/api-error.js';
import { AUTH_PREFIX, FUNCTIONS_PREFIX } from '../errors/error-body.js';
import { GoTrueError } from '../errors/gotrue-error.js';
import { clientAddressKey } from './client-address.js';

const SIGN_UP_ROUTE = `${AUTH_PREFIX}/signup`;

const sha256 = (text: string) => hash('sha256', text);

/**
 * Requests per minute on every route (RATE_LIMIT_PER_MINUTE), and sign-ups per client address (SIGNUP_LIMIT_PER_IP).
 */
export function appThrottlers(config: HttpConfig): ThrottlerOptions[] {
  return [
    // Its count goes out as the RateLimit-* headers (AppThrottlerGuard).
    { name: 'default', ttl: 60_000, limit: config.RATE_LIMIT_PER_MINUTE, setHeaders: true },
    {
      name: 'signup',
      ttl: config.SIGNUP_WINDOW_SECONDS * 1000,
      limit: config.SIGNUP_LIMIT_PER_IP,
      setHeaders: false,
      skipIf: (context) => {
        const request = context.switchToHttp().getRequest<FastifyRequest>();
        return !(request.method === 'POST' && request.routeOptions.url === SIGN_UP_ROUTE);
      },
      // By address even when a user's token comes along: it is new accounts per address that are limited.
      getTracker: (request) => `ip:${clientAddressKey((request as FastifyRequest).ip)}`,
    },
  ];
}

/**
 * The throttler with the contract's 429: RATE_LIMITED (or GoTrue's over_request_rate_limit) and
 * Retry-After. For a signed-in caller the JWT strategy starts the count (`startEarly`) as soon as the
 * token has verified, so the Redis round trip runs beside the caller's database lookup instead of
 * after it; this guard, next in line, then only waits for that verdict.
 *
 * Every /functions/v1 answer the limit has counted carries the count as the IETF RateLimit header
 * fields: `RateLimit-Limit` (requests in the window), `RateLimit-Remaining` and `RateLimit-Reset`
 * (seconds until the window resets). They are set when this guard lets the request through, so that
 * the 403, 404, 400 and 2xx that follow carry them, and on the 429; a request refused before the
 * guard (401, an unreadable body, an unknown path) was not counted and carries none.
 */
@Injectable()
export class AppThrottlerGuard extends ThrottlerGuard {
  protected override headerPrefix = 'RateLimit';
  private readonly keys = new BoundedCache<string, string>(10_000);

  /**
   * The library reads each throttler's skip, limit, ttl, block duration, tracker and key generator from the
   * route's metadata on every request (fourteen reflect-metadata lookups here): they are read once per route.
   */
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
  ) {
    super(options, storage, new MemoisedReflector(reflector));
  }

  /** Counts this request now, keyed by the token's (verified) user; `canActivate` decides from it. */
  startEarly(context: ExecutionContext, tokenUserId: string): void {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    request.tokenUserId = tokenUserId;
    const verdict = super.canActivate(context);
    // Settled by canActivate; a request refused before then (401) leaves it unread, not unhandled.
    verdict.catch(() => undefined);
    request.throttleVerdict = verdict;
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const allowed = await (request.throttleVerdict ?? super.canActivate(context));
    if (request.rateLimitHeaders && request.url.startsWith(`${FUNCTIONS_PREFIX}/`)) {
      context.switchToHttp().getResponse<FastifyReply>().headers(request.rateLimitHeaders);
    }
    return allowed;
  }

  /**
   * The library's header calls (RateLimit-Limit, -Remaining, -Reset) are kept on the request and
   * sent by `canActivate` once the caller is through: the early count may settle while a 401 is
   * being answered, and a 401 carries no count.
   */
  protected override setResponseHeader(res: Record<string, any>, name: string, value: string | number): void {
    const request = (res as FastifyReply).request;
    (request.rateLimitHeaders ??= {})[name] = String(value);
  }

  protected override async throwThrottlingException(
    context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const windowSeconds = Math.round(detail.ttl / 1000);
    const retryAfter = Math.max(1, detail.timeToBlockExpire || detail.timeToExpire);
    if (request.url.startsWith(AUTH_PREFIX)) {
      throw new GoTrueError(429, 'over_request_rate_limit', `Too many requests, retry in ${retryAfter} seconds`, {
        'Retry-After': String(retryAfter),
      });
    }
    const error = ApiError.rateLimited(detail.limit, windowSeconds, retryAfter);
    if (request.url.startsWith(`${FUNCTIONS_PREFIX}/`)) {
      // Nothing is left of this window; it opens again when Retry-After says.
      Object.assign(error.headers, {
        'RateLimit-Limit': String(detail.limit),
        'RateLimit-Remaining': '0',
        'RateLimit-Reset': error.headers['Retry-After'],
      });
    }
    throw error;
  }

  /**
   * The library's key (the SHA-256 of class, handler, throttler and tracker, so the counts in Redis stay
   * the same keys), remembered: it was hashed anew on every request, for the same few callers and routes.
   */
  protected override generateKey(context: ExecutionContext, suffix: string, name: string): string {
    return this.keys.getOrSet(`${context.getClass().name}-${context.getHandler().name}-${name}-${suffix}`, sha256);
  }

  protected override async getTracker(req: Record<string, any>): Promise<string> {
    const request = req as FastifyRequest;
    // A store key is counted as itself, apart from the user who made it and from other keys.
    if (request.principal?.kind === 'api_key') return `api_key:${request.principal.keyId}`;
    const userId = request.principal?.kind === 'user' ? request.principal.userId : request.tokenUserId;
    return userId ? `user:${userId}` : `ip:${clientAddressKey(request.ip)}`;
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The user a verified access token names, before the database has confirmed its session. */
    tokenUserId?: string;
    /** The rate limit's verdict, counted early (AppThrottlerGuard.startEarly). */
    throttleVerdict?: Promise<boolean>;
    /** The RateLimit-* headers of the count, sent once the request is through the guard. */
    rateLimitHeaders?: Record<string, string>;
  }
}
