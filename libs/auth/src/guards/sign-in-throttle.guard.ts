import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AppConfig, GoTrueError, RedisThrottlerStorage } from '@app/core';

/**
 * Limits password sign-in attempts per client IP and per e-mail address (SIGNIN_LIMIT_PER_IP,
 * SIGNIN_LIMIT_PER_EMAIL per SIGNIN_WINDOW_SECONDS), counted in Redis across instances; while Redis
 * is unreachable password sign-in answers 503 rather than go uncounted.
 */
@Injectable()
export class SignInThrottleGuard implements CanActivate {
  constructor(
    private readonly storage: RedisThrottlerStorage,
    private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest<{ Querystring: { grant_type?: string } }>>();
    if (request.query.grant_type !== 'password') return true;
    const ttl = this.config.SIGNIN_WINDOW_SECONDS * 1000;
    const email = (request.body as { email?: unknown } | undefined)?.email;
    const checks: [string, number][] = [[`ip:${request.ip}`, this.config.SIGNIN_LIMIT_PER_IP]];
    if (typeof email === 'string') checks.push([`email:${email.trim().toLowerCase()}`, this.config.SIGNIN_LIMIT_PER_EMAIL]);
    for (const [key, limit] of checks) {
      const record = await this.storage.count(key, ttl, limit, ttl, 'signin').catch(() => {
        // Uncounted attempts would lift the guessing limit: no password sign-in until Redis is back.
        throw new GoTrueError(503, 'service_unavailable', 'Sign-in is briefly unavailable, retry in a few seconds', { 'Retry-After': '5' });
      });
      if (record.isBlocked) {
        const retryAfter = Math.max(1, record.timeToBlockExpire);
        throw new GoTrueError(429, 'over_request_rate_limit', `Too many sign-in attempts, retry in ${retryAfter} seconds`, {
          'Retry-After': String(retryAfter),
        });
      }
    }
    return true;
  }
}
