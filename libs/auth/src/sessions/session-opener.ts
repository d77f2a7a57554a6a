import { Inject, Injectable } from '@nestjs/common';
import { DbScopes, GoTrueError, randomToken, RequestBinding, type Role, TenantDb, type UserPrincipal } from '@app/core';
import { toUserView, type UserView } from '../users/user.js';
import { UserRepository } from '../users/user.repository.js';
import { AccessTokenService, ACCESS_TOKEN_TTL_SECONDS } from './access-token.service.js';
import { AuthStore } from './auth-store.js';
import type { SessionView } from './session.js';
import type { SessionMeta } from './session.repository.js';
import { authConfig, type AuthConfig } from '../auth.config.js';

/**
 * Opening sessions for users the API has just proven (a password, a link, Google), in the caller's
 * transaction of someone not signed in yet: the session is opened by `auth_open_session` and the
 * transaction bound to it, so what follows runs as that user, under row-level security.
 */
@Injectable()
export class SessionOpener {
  constructor(
    private readonly users: UserRepository,
    private readonly store: AuthStore,
    private readonly tokens: AccessTokenService,
    @Inject(authConfig.KEY) private readonly config: AuthConfig,
    private readonly scopes: DbScopes,
    private readonly binding: RequestBinding,
    private readonly db: TenantDb,
  ) {}

  /** `work` in a transaction of a caller not signed in yet (the request login, unbound until a session is opened). */
  anonymous<T>(work: () => Promise<T>): Promise<T> {
    return this.scopes.asAnonymous(() => this.db.transaction(work));
  }

  /** Opens the session and binds the transaction to it: from here on it is that user's, under RLS. */
  async openBound(
    userId: string,
    email: string,
    role: Role,
    refreshToken: string,
    meta: SessionMeta,
  ): Promise<UserPrincipal> {
    const sessionId = await this.store.openSession(userId, refreshToken, meta);
    const principal: UserPrincipal = { kind: 'user', userId, email, role, sessionId };
    await this.binding.bind(this.db.tx, principal);
    return principal;
  }

  /** Binds the transaction to an open session (a refresh's). */
  bind(principal: UserPrincipal): Promise<void> {
    return this.binding.bind(this.db.tx, principal);
  }

  /** A new session for a user just proven, answered; inside an anonymous transaction. */
  async start(userId: string, meta: SessionMeta): Promise<SessionView> {
    const refreshToken = randomToken(32);
    const principal = await this.openBound(userId, '', 'merchant', refreshToken, meta);
    return this.view(principal, refreshToken);
  }

  /** The session's answer, from the user row as the bound session reads it. */
  async view(principal: UserPrincipal, refreshToken: string): Promise<SessionView> {
    const user = await this.users.findById(principal.userId);
    if (!user) throw new GoTrueError(400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found');
    const { token, expiresAt } = this.tokens.sign(user, principal.sessionId);
    return {
      access_token: token,
      token_type: 'bearer',
      expires_in: ACCESS_TOKEN_TTL_SECONDS,
      expires_at: expiresAt,
      refresh_token: refreshToken,
      user: toUserView(user, this.config.JWT_AUDIENCE),
    };
  }

  /** The user as the bound transaction reads it. */
  async user(userId: string): Promise<UserView> {
    const user = await this.users.findById(userId);
    if (!user) throw new GoTrueError(404, 'user_not_found', 'User from sub claim in JWT does not exist');
    return toUserView(user, this.config.JWT_AUDIENCE);
  }
}
