import { Injectable, type ExecutionContext } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail } from '@nestjs/throttler';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import { AUTH_PREFIX } from '../errors/error-body.js';
import { GoTrueError } from '../errors/gotrue-error.js';

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
    return principal?.kind === 'user' ? `user:${principal.userId}` : `ip:${(req as FastifyRequest).ip}`;
  }
}
