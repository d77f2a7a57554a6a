import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import {
  ACCESS_KEY,
  ANON_ONLY_MESSAGE,
  ApiError,
  AppConfig,
  AppThrottlerGuard,
  AUTH_PREFIX,
  CallerLookup,
  DbScopes,
  type CallerFacts,
  GoTrueError,
  locateStore,
  runsInRequestTransaction,
  safeEqual,
  STORE_LOCATION_KEY,
  type Principal,
  type RouteAccess,
  type StoreLocation,
} from '@app/core';
import { AccessTokenService } from '../sessions/access-token.service.js';

/**
 * Identifies every caller: a user's access token or the public API key (role anon). Routes are for
 * signed-in users unless marked @PublicKeyAllowed() or @Public(). A token only names a session: one
 * database round trip (CallerLookup) checks that the session is open and reads the user's role now,
 * with, on store-scoped routes, the relation to the route's store that StoreAccessGuard then judges.
 * On routes whose handler runs in one request transaction, that round trip also opens the
 * transaction and binds it to the session (RequestTransaction).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: AccessTokenService,
    private readonly callers: CallerLookup,
    private readonly scopes: DbScopes,
    private readonly config: AppConfig,
    private readonly throttler: AppThrottlerGuard,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const access =
      this.reflector.getAllAndOverride<RouteAccess | undefined>(ACCESS_KEY, [context.getHandler(), context.getClass()]) ?? 'user';
    if (access === 'public') return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    request.principal = await this.identify(request, context);
    if (request.principal?.kind === 'user') this.scopes.enterRequest(request.principal);
    if (access === 'anon' && request.principal) return true;
    if (request.principal?.kind === 'user') return true;
    throw this.unauthenticated(request, request.principal?.kind === 'anon' ? ANON_ONLY_MESSAGE : this.missingMessage(access));
  }

  private missingMessage(access: RouteAccess): string {
    return access === 'anon'
      ? 'No API key found in request: send the public API key in the apikey header or as a Bearer token'
      : 'Missing access token: send Authorization: Bearer <access_token>';
  }

  private async identify(request: FastifyRequest, context: ExecutionContext): Promise<Principal | undefined> {
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
    const claims = this.tokens.verify(bearer);
    if (!claims) throw this.unauthenticated(request, 'Invalid or expired access token', 'bad_jwt');
    const location = this.reflector.get<StoreLocation | undefined>(STORE_LOCATION_KEY, context.getHandler());
    const located = location ? locateStore(location, request) : null;
    const reference = located?.ok ? located.reference : null;
    // The rate limit is counted in Redis while the database looks the caller up.
    this.throttler.startEarly(context, claims.userId);
    let facts: CallerFacts | null;
    if (runsInRequestTransaction(this.reflector, context, request)) {
      // The handler's transaction opens with the lookup, in the same round trip, bound to the session.
      const opened = await this.callers.open(claims.sessionId, reference);
      facts = opened?.facts ?? null;
      if (opened && facts?.userId === claims.userId) {
        request.requestTransaction = opened.transaction;
        opened.transaction.enter();
      } else opened?.transaction.abandon();
    } else {
      facts = await this.callers.lookUp(claims.sessionId, reference);
    }
    if (!facts || facts.userId !== claims.userId) {
      throw this.unauthenticated(request, 'Session has ended; sign in again', 'session_not_found');
    }
    if (located?.ok) request.callerFacts = facts;
    // The role is the database's: a claim that disagrees (a demoted admin's token) grants nothing.
    return { kind: 'user', userId: facts.userId, email: facts.email, role: facts.role, sessionId: claims.sessionId };
  }

  private unauthenticated(request: FastifyRequest, message: string, goTrueCode = 'no_authorization'): Error {
    return request.url.startsWith(AUTH_PREFIX) ? new GoTrueError(401, goTrueCode, message) : ApiError.unauthenticated(message);
  }
}
