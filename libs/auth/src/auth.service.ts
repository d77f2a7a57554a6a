import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { AppConfig, Databases, DbScopes, GoTrueError, randomToken, type Role, type UserPrincipal } from '@app/core';
import { AcceptStoreInvitationCommand } from './commands/accept-store-invitation.command.js';
import { RegisterStoreCustomerCommand } from './commands/register-store-customer.command.js';
import { MIN_PASSWORD_LENGTH, type PasswordGrantBody, type SignUpBody } from './dto/auth.dto.js';
import { AccessTokenService, ACCESS_TOKEN_TTL_SECONDS } from './sessions/access-token.service.js';
import { AuthStore } from './sessions/auth-store.js';
import type { SessionView } from './sessions/session.js';
import type { SessionMeta } from './sessions/session.repository.js';
import { PasswordHasher } from './users/password-hasher.js';
import { toUserView, type UserView } from './users/user.js';
import { UserRepository } from './users/user.repository.js';

export type LogoutScope = 'global' | 'local' | 'others';

const INVALID_CREDENTIALS = () => new GoTrueError(400, 'invalid_credentials', 'Invalid login credentials');

/**
 * Sign-up, sign-in, refresh rotation and logout: the GoTrue subset of the contract. Everything runs
 * on the request login: what crosses users goes through the database's narrow auth functions
 * (AuthStore); once a session is open or rotated, the transaction is bound to it and the rest (the
 * user row, a customer's record, an accepted invitation) runs under row-level security as that user.
 */
@Injectable()
export class AuthService {
  constructor(
    private readonly users: UserRepository,
    private readonly store: AuthStore,
    private readonly tokens: AccessTokenService,
    private readonly hasher: PasswordHasher,
    private readonly commands: CommandBus,
    private readonly config: AppConfig,
    private readonly scopes: DbScopes,
    private readonly databases: Databases,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
  ) {}

  async signUp(body: SignUpBody, meta: SessionMeta): Promise<SessionView> {
    if (body.password.length < MIN_PASSWORD_LENGTH) {
      throw new GoTrueError(422, 'weak_password', `Password should be at least ${MIN_PASSWORD_LENGTH} characters.`);
    }
    const data = body.data ?? {};
    if (data.role === 'customer' && !data.store_id) {
      throw new GoTrueError(400, 'validation_failed', 'data.store_id is required when data.role is "customer"');
    }
    if (data.role === 'customer' && data.invite_token) {
      throw new GoTrueError(
        400,
        'validation_failed',
        'A sign-up is either a customer (data.role) or a team member (data.invite_token), not both',
      );
    }
    const role: Exclude<Role, 'admin'> = data.role === 'customer' ? 'customer' : data.invite_token ? 'team_member' : 'merchant';
    const passwordHash = await this.hasher.hash(body.password);
    return this.anonymousTransaction(async () => {
      const created = await this.store.createAccount({
        email: body.email,
        passwordHash,
        role,
        fullName: data.full_name ?? null,
        provider: 'email',
        storeId: role === 'customer' ? data.store_id! : null,
      });
      if (created === 'email_taken') throw new GoTrueError(422, 'user_already_exists', 'User already registered');
      if (created === 'unknown_store') throw new GoTrueError(400, 'validation_failed', 'data.store_id does not name an existing store');
      const refreshToken = randomToken(32);
      const principal = await this.openBoundSession(created, body.email, role, refreshToken, meta);
      if (role === 'customer') {
        await this.commands.execute(new RegisterStoreCustomerCommand(data.store_id!, created, body.email, data.full_name ?? null));
      }
      if (role === 'team_member') {
        await this.commands.execute(new AcceptStoreInvitationCommand(data.invite_token!, body.email, created));
      }
      return this.sessionView(principal, refreshToken);
    });
  }

  async signInWithPassword(body: PasswordGrantBody, meta: SessionMeta): Promise<SessionView> {
    const candidate = await this.anonymousTransaction(() => this.store.passwordCandidate(body.email));
    const valid = await this.hasher.verify(candidate?.passwordHash ?? null, body.password);
    if (!candidate || !valid) throw INVALID_CREDENTIALS();
    return this.startSession(candidate.userId, meta);
  }

  /**
   * Google vouched for the address: its account (made a merchant when new; a password someone set
   * on that unverified address before is cleared and its sessions end) and a new session.
   */
  signInWithGoogle(email: string, fullName: string | null, meta: SessionMeta): Promise<SessionView> {
    return this.anonymousTransaction(async () => {
      const userId = await this.store.googleAccount(email, fullName);
      const refreshToken = randomToken(32);
      const principal = await this.openBoundSession(userId, email, 'merchant', refreshToken, meta);
      return this.sessionView(principal, refreshToken);
    });
  }

  /** Opens a session for a user the caller has just proven (a password) and answers it. */
  private startSession(userId: string, meta: SessionMeta): Promise<SessionView> {
    return this.anonymousTransaction(async () => {
      const refreshToken = randomToken(32);
      const principal = await this.openBoundSession(userId, '', 'merchant', refreshToken, meta);
      return this.sessionView(principal, refreshToken);
    });
  }

  /** Rotates a refresh token; a token presented twice revokes its whole session (the token family). */
  async refresh(refreshToken: string): Promise<SessionView> {
    const outcome = await this.anonymousTransaction(async (): Promise<SessionView | GoTrueError> => {
      const next = randomToken(32);
      const rotation = await this.store.rotate(refreshToken, next);
      if (rotation.kind === 'reused') return new GoTrueError(400, 'refresh_token_already_used', 'Invalid Refresh Token: Already Used');
      if (rotation.kind === 'unknown')
        return new GoTrueError(400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found');
      const principal: UserPrincipal = {
        kind: 'user',
        userId: rotation.userId,
        email: '',
        role: 'merchant',
        sessionId: rotation.sessionId,
      };
      await this.databases.bind(this.txHost.tx, principal);
      return this.sessionView(principal, next);
    });
    // Thrown after commit, so that a reuse's revocation is kept.
    if (outcome instanceof GoTrueError) throw outcome;
    return outcome;
  }

  async getUser(principal: UserPrincipal): Promise<UserView> {
    const user = await this.users.findById(principal.userId);
    if (!user) throw new GoTrueError(404, 'user_not_found', 'User from sub claim in JWT does not exist');
    return toUserView(user, this.config.JWT_AUDIENCE);
  }

  /** As the signed-in user (its request scope): the database ends the bound session's sessions. */
  async logout(_principal: UserPrincipal, scope: LogoutScope): Promise<void> {
    await this.txHost.withTransaction(() => this.store.endSessions(scope));
  }

  private anonymousTransaction<T>(work: () => Promise<T>): Promise<T> {
    return this.scopes.asAnonymous(() => this.txHost.withTransaction(work));
  }

  /** Opens the session and binds the transaction to it: from here on it is that user's, under RLS. */
  private async openBoundSession(
    userId: string,
    email: string,
    role: Role,
    refreshToken: string,
    meta: SessionMeta,
  ): Promise<UserPrincipal> {
    const sessionId = await this.store.openSession(userId, refreshToken, meta);
    const principal: UserPrincipal = { kind: 'user', userId, email, role, sessionId };
    await this.databases.bind(this.txHost.tx, principal);
    return principal;
  }

  /** The session's answer, from the user row as the bound session reads it. */
  private async sessionView(principal: UserPrincipal, refreshToken: string): Promise<SessionView> {
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
}
