import { Inject, Injectable, type ExecutionContext } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import { Strategy, type StrategyOptionsWithRequest } from 'passport-jwt';
import {
  AppThrottlerGuard,
  BoundedCache,
  CallerLookup,
  ROLES,
  type CallerFacts,
  type StoreReference,
  type UserPrincipal,
} from '@app/core';
import { authConfig, type AuthConfig } from '../auth.config.js';
import { accessTokenKey, type AccessTokenClaims } from '../sessions/access-token.service.js';
import { unauthenticated } from './credentials.js';

/** What the auth guard learned about the route before the strategies run. */
export interface RouteAuth {
  context: ExecutionContext;
  /** The store the route names (path, query or a record's id), for the caller's relation to it. */
  storeReference: StoreReference | null;
  /** The handler runs in the request transaction: the lookup opens it. */
  inTransaction: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by JwtAuthGuard before the strategies run. */
    routeAuth?: RouteAuth;
  }
}

/**
 * `jwt`: a user's access token, verified by passport-jwt (HS256 only, our audience, not expired),
 * then checked against the database in `validate`: the token only names a session. One round trip
 * (CallerLookup) confirms the session is open and reads the user's role now, with the relation to
 * the route's store; on routes whose handler runs in one transaction it also opens that transaction,
 * bound to the session. The rate limit's Redis count starts before that round trip and runs beside it.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  private readonly verified = new BoundedCache<string, AccessTokenClaims>(10_000);

  constructor(
    @Inject(authConfig.KEY) config: AuthConfig,
    private readonly callers: CallerLookup,
    private readonly throttler: AppThrottlerGuard,
  ) {
    // jsonwebtoken takes a KeyObject (its typings here say only string | Buffer); a string or buffer
    // would be tried as a public key first on every verification.
    const key = accessTokenKey(config) as unknown as Buffer;
    const options: StrategyOptionsWithRequest = {
      jwtFromRequest: (request: FastifyRequest) =>
        request.credentials?.kind === 'token' ? request.credentials.token : null,
      secretOrKey: key,
      algorithms: ['HS256'],
      audience: config.JWT_AUDIENCE,
      passReqToCallback: true,
    };
    super(options);
  }

  /**
   * A token passport-jwt has verified is remembered by its exact text until it expires: the same
   * bytes verify the same way, so the next request with it goes straight to `validate` without the
   * signature and JSON work (a few percent of an authenticated read; docs/performance.md).
   */
  override authenticate(request: Parameters<Strategy['authenticate']>[0], options?: object): void {
    const credentials = (request as unknown as FastifyRequest).credentials;
    const known = credentials?.kind === 'token' ? this.verified.get(credentials.token) : undefined;
    if (!known || known.exp <= Date.now() / 1000) return super.authenticate(request, options);
    this.validate(request as unknown as FastifyRequest, known).then(
      (principal) => this.success(principal),
      (error: Error) => this.error(error),
    );
  }

  async validate(request: FastifyRequest, claims: Partial<AccessTokenClaims>): Promise<UserPrincipal> {
    if (
      typeof claims.sub !== 'string' ||
      typeof claims.session_id !== 'string' ||
      typeof claims.exp !== 'number' ||
      !ROLES.includes(claims.role!)
    ) {
      throw unauthenticated(request, 'Invalid or expired access token', 'bad_jwt');
    }
    // Only passport-jwt's verified claims reach here (or claims it verified before).
    if (request.credentials?.kind === 'token')
      this.verified.set(request.credentials.token, claims as AccessTokenClaims);
    const route = request.routeAuth!;
    this.throttler.startEarly(route.context, claims.sub);
    const facts = await this.lookUp(request, claims.sub, claims.session_id, route);
    if (!facts || facts.userId !== claims.sub) {
      throw unauthenticated(request, 'Session has ended; sign in again', 'session_not_found');
    }
    if (route.storeReference) request.callerFacts = facts;
    // The role is the database's: a claim that disagrees (a demoted admin's token) grants nothing.
    return { kind: 'user', userId: facts.userId, email: facts.email, role: facts.role, sessionId: claims.session_id };
  }

  private async lookUp(
    request: FastifyRequest,
    userId: string,
    sessionId: string,
    route: RouteAuth,
  ): Promise<CallerFacts | null> {
    if (!route.inTransaction) return this.callers.lookUp(sessionId, route.storeReference);
    // The handler's transaction opens with the lookup, in the same round trip, bound to the session.
    const opened = await this.callers.open(sessionId, route.storeReference);
    if (!opened) return null;
    if (opened.facts?.userId === userId) {
      request.requestTransaction = opened.transaction;
      opened.transaction.enter();
    } else opened.transaction.abandon();
    return opened.facts;
  }
}
