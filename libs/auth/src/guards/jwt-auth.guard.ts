import { Inject, Injectable, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard, type AuthGuardAuthenticateOptions } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import {
  ACCESS_KEY,
  actorOf,
  ANON_ONLY_MESSAGE,
  ApiError,
  AUTH_PREFIX,
  DbScopes,
  locateStore,
  MemoisedReflector,
  runsInRequestTransaction,
  STORE_KEY_REFUSED_MESSAGE,
  STORE_LOCATION_KEY,
  type Principal,
  type RouteAccess,
  type StoreLocation,
} from '@app/core';
import { readCredentials, unauthenticated } from '../passport/credentials.js';
import { authConfig, type AuthConfig } from '../auth.config.js';

const AUTHENTICATE_OPTIONS: AuthGuardAuthenticateOptions = { session: false, property: 'principal' };

/**
 * The global guard: every route needs a signed-in user's access token (passport `jwt`) unless it is
 * marked @PublicKeyAllowed() — the public API key (passport `api-key`, role anon) suffices — or
 * @Public(). The strategies authenticate; this guard reads the route (its access rule, the store it
 * names, whether its handler runs in one transaction) and turns failures into the route's 401.
 *
 * A store key (passport `store-key`) is refused under /auth/v1 (401) before any lookup, and once
 * known, on every route but the store-scoped ones that need no more than a team member's permission
 * and do not refuse keys (403): deny by default.
 */
@Injectable()
export class JwtAuthGuard extends AuthGuard(['jwt', 'store-key', 'api-key']) {
  /** The routes' metadata (access rule, store location, own transactions), read once per handler and class. */
  private readonly metadata: Reflector;

  constructor(
    reflector: Reflector,
    @Inject(authConfig.KEY) private readonly config: AuthConfig,
    private readonly scopes: DbScopes,
  ) {
    super();
    this.metadata = new MemoisedReflector(reflector);
  }

  /** No passport session; the principal lands on `request.principal`. */
  override getAuthenticateOptions(): AuthGuardAuthenticateOptions {
    return AUTHENTICATE_OPTIONS;
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const access =
      this.metadata.getAllAndOverride<RouteAccess | undefined>(ACCESS_KEY, [
        context.getHandler(),
        context.getClass(),
      ]) ?? 'user';
    if (access === 'public') return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    request.credentials = readCredentials(request, this.config.publicApiKey);
    if (request.credentials.kind === 'none') throw unauthenticated(request, missingMessage(access));
    if (request.credentials.kind === 'public_key' && access === 'user')
      throw unauthenticated(request, ANON_ONLY_MESSAGE);
    if (request.credentials.kind === 'store_key' && request.url.startsWith(AUTH_PREFIX)) {
      throw unauthenticated(request, 'Store keys cannot call /auth/v1: they are for /functions/v1', 'bad_jwt');
    }
    const location = this.metadata.get<StoreLocation | undefined>(STORE_LOCATION_KEY, context.getHandler());
    const located = location ? locateStore(location, request) : null;
    request.routeAuth = {
      context,
      storeReference: located?.ok ? located.reference : null,
      inTransaction:
        (request.credentials.kind === 'token' || request.credentials.kind === 'store_key') &&
        runsInRequestTransaction(this.metadata, context, request),
    };
    await super.canActivate(context);
    const principal = request.principal!;
    if (principal.kind === 'user' || principal.kind === 'api_key') request.raw.storefrontActor = actorOf(principal);
    const keyRefused = principal.kind === 'api_key' && !this.storeKeyMayCall(location);
    if (keyRefused) throw ApiError.forbidden(STORE_KEY_REFUSED_MESSAGE);
    if (principal.kind === 'user' || principal.kind === 'api_key') this.scopes.enterRequest(principal);
    return true;
  }

  /**
   * A store key calls only store-scoped routes that a team member with permissions could: not the
   * owner's (`manage`), not those whose rule refuses keys (`storeKeys: false`), nothing else.
   */
  private storeKeyMayCall(location: StoreLocation | undefined): boolean {
    const rule = location as (StoreLocation & { need?: string; storeKeys?: boolean }) | undefined;
    return !!rule && rule.need !== 'manage' && rule.storeKeys !== false;
  }

  /** Passport's verdict: a strategy's own error (a session that ended) as it is, any other failure a 401. */
  override handleRequest<P = Principal>(
    error: unknown,
    principal: P | false,
    _info: unknown,
    context: ExecutionContext,
  ): P {
    if (error) throw error;
    if (principal) return principal;
    throw unauthenticated(
      context.switchToHttp().getRequest<FastifyRequest>(),
      'Invalid or expired access token',
      'bad_jwt',
    );
  }
}

function missingMessage(access: RouteAccess): string {
  return access === 'anon'
    ? 'No API key found in request: send the public API key in the apikey header or as a Bearer token'
    : 'Missing access token: send Authorization: Bearer <access_token>';
}
