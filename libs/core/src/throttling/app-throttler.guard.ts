import { Injectable, type ExecutionContext } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail, type ThrottlerOptions } from '@nestjs/throttler';
import type { FastifyRequest } from 'fastify';
import type { AppConfig } from '../config/app-config.js';
import { ApiError } from '../errors/api-error.js';
import { AUTH_PREFIX } from '../errors/error-body.js';
import { GoTrueError } from '../errors/gotrue-error.js';
import { clientAddressKey } from './client-address.js';

const SIGN_UP_ROUTE = `${AUTH_PREFIX}/signup`;

/** Requests per minute on every route (RATE_LIMIT_PER_MINUTE), and sign-ups per client address (SIGNUP_LIMIT_PER_IP). */
export function appThrottlers(config: AppConfig): ThrottlerOptions[] {
  return [
    { name: 'default', ttl: 60_000, limit: config.RATE_LIMIT_PER_MINUTE, setHeaders: false },
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

/** The throttler with the contract's 429: RATE_LIMITED (or GoTrue's over_request_rate_limit) and Retry-After. */
@Injectable()
export class AppThrottlerGuard extends ThrottlerGuard {
  protected override async throwThrottlingException(context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const windowSeconds = Math.round(detail.ttl / 1000);
    const retryAfter = Math.max(1, detail.timeToBlockExpire || detail.timeToExpire);
    if (request.url.startsWith(AUTH_PREFIX)) {
      throw new GoTrueError(429, 'over_request_rate_limit', `Too many requests, retry in ${retryAfter} seconds`, {
        'Retry-After': String(retryAfter),
      });
    }
    throw ApiError.rateLimited(detail.limit, windowSeconds, retryAfter);
  }

  protected override async getTracker(req: Record<string, any>): Promise<string> {
    const principal = (req as FastifyRequest).principal;
    return principal?.kind === 'user' ? `user:${principal.userId}` : `ip:${clientAddressKey((req as FastifyRequest).ip)}`;
  }
}
