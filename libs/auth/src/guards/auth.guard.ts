import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import {
  ACCESS_KEY,
  ANON_ONLY_MESSAGE,
  ApiError,
  AppConfig,
  AUTH_PREFIX,
  GoTrueError,
  safeEqual,
  type Principal,
  type RouteAccess,
} from '@app/core';
import { AccessTokenService } from '../sessions/access-token.service.js';
import { SessionRepository } from '../sessions/session.repository.js';

/**
 * Identifies every caller: a user's access token (verified, session still open) or the public API key
 * (role anon). Routes are for signed-in users unless marked @PublicKeyAllowed() or @Public().
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: AccessTokenService,
    private readonly sessions: SessionRepository,
    private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const access =
      this.reflector.getAllAndOverride<RouteAccess | undefined>(ACCESS_KEY, [context.getHandler(), context.getClass()]) ?? 'user';
    if (access === 'public') return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    request.principal = await this.identify(request);
    if (access === 'anon' && request.principal) return true;
    if (request.principal?.kind === 'user') return true;
    throw this.unauthenticated(request, request.principal?.kind === 'anon' ? ANON_ONLY_MESSAGE : this.missingMessage(access));
  }

  private missingMessage(access: RouteAccess): string {
    return access === 'anon'
      ? 'No API key found in request: send the public API key in the apikey header or as a Bearer token'
      : 'Missing access token: send Authorization: Bearer <access_token>';
  }

  private async identify(request: FastifyRequest): Promise<Principal | undefined> {
    const apikey = request.headers.apikey;
    const publicKey = this.config.publicApiKey;
    if (apikey !== undefined && (typeof apikey !== 'string' || !safeEqual(apikey, publicKey))) {
      throw this.unauthenticated(request, 'Invalid API key', 'invalid_api_key');
    }
    const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    if (request.headers.authorization !== undefined && !bearer) {
      throw this.unauthenticated(request, 'Authorization header must be "Bearer <token>"', 'bad_jwt');
    }
    if (!bearer) return apikey ? { kind: 'anon' } : undefined;
    if (safeEqual(bearer, publicKey)) return { kind: 'anon' };
    const principal = this.tokens.verify(bearer);
    if (!principal) throw this.unauthenticated(request, 'Invalid or expired access token', 'bad_jwt');
    if (!(await this.sessions.isActive(principal.sessionId, principal.userId))) {
      throw this.unauthenticated(request, 'Session has ended; sign in again', 'session_not_found');
    }
    return principal;
  }

  private unauthenticated(request: FastifyRequest, message: string, goTrueCode = 'no_authorization'): Error {
    return request.url.startsWith(AUTH_PREFIX) ? new GoTrueError(401, goTrueCode, message) : ApiError.unauthenticated(message);
  }
}
