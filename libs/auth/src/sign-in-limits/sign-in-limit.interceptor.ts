import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { from, lastValueFrom, type Observable } from 'rxjs';
import { SignInLimiter, type SignInAttempt } from './sign-in-limiter.js';

/**
 * Applies SignInLimiter to password grants on POST /auth/v1/token: counts the attempt before the
 * password is checked and settles it with the outcome. Refresh grants pass untouched.
 */
@Injectable()
export class SignInLimitInterceptor implements NestInterceptor {
  constructor(private readonly limiter: SignInLimiter) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const request = context.switchToHttp().getRequest<FastifyRequest<{ Querystring: { grant_type?: string } }>>();
    if (request.query.grant_type !== 'password') return next.handle();
    const email = (request.body as { email?: unknown } | undefined)?.email;
    const attempt = await this.limiter.reserve(email, request.ip);
    return from(this.settled(next.handle(), attempt));
  }

  // Settled before answering, so the next attempt already sees this one's outcome.
  private async settled(answer: Observable<unknown>, attempt: SignInAttempt): Promise<unknown> {
    try {
      const session = await lastValueFrom(answer);
      await this.limiter.succeeded(attempt);
      return session;
    } catch (error) {
      await this.limiter.failed(attempt, error);
      throw error;
    }
  }
}
