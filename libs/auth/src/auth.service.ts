import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { Transactional } from '@nestjs-cls/transactional';
import { AppConfig, DbScopes, GoTrueError, randomToken, type Role, type UserPrincipal } from '@app/core';
import { AcceptStoreInvitationCommand } from './commands/accept-store-invitation.command.js';
import { RegisterStoreCustomerCommand } from './commands/register-store-customer.command.js';
import { MIN_PASSWORD_LENGTH, type PasswordGrantBody, type SignUpBody } from './dto/auth.dto.js';
import { AccessTokenService, ACCESS_TOKEN_TTL_SECONDS } from './sessions/access-token.service.js';
import type { SessionView } from './sessions/session.js';
import { SessionRepository, type SessionMeta } from './sessions/session.repository.js';
import { PasswordHasher } from './users/password-hasher.js';
import { toUserView, type UserRow, type UserView } from './users/user.js';
import { UserRepository } from './users/user.repository.js';

export type LogoutScope = 'global' | 'local' | 'others';

const INVALID_CREDENTIALS = () => new GoTrueError(400, 'invalid_credentials', 'Invalid login credentials');

/**
 * Sign-up, sign-in, refresh rotation and logout: the GoTrue subset of the contract. These cross
 * users by nature (find an account by e-mail, rotate a token whose owner is not known yet), so they
 * run as the system; reading the signed-in user runs as that user, under row-level security.
 */
@Injectable()
export class AuthService {
  constructor(
    private readonly users: UserRepository,
    private readonly sessions: SessionRepository,
    private readonly tokens: AccessTokenService,
    private readonly hasher: PasswordHasher,
    private readonly commands: CommandBus,
    private readonly config: AppConfig,
    private readonly scopes: DbScopes,
  ) {}

  signUp(body: SignUpBody, meta: SessionMeta): Promise<SessionView> {
    return this.scopes.asSystem(() => this.signUpAsSystem(body, meta));
  }

  @Transactional()
  private async signUpAsSystem(body: SignUpBody, meta: SessionMeta): Promise<SessionView> {
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
    const role: Role = data.role === 'customer' ? 'customer' : data.invite_token ? 'team_member' : 'merchant';
    const user = await this.users.insert({
      email: body.email,
      passwordHash: await this.hasher.hash(body.password),
      role,
      fullName: data.full_name ?? null,
      provider: 'email',
      storeId: role === 'customer' ? data.store_id! : null,
    });
    if (user === 'email_taken') throw new GoTrueError(422, 'user_already_exists', 'User already registered');
    if (user === 'unknown_store') throw new GoTrueError(400, 'validation_failed', 'data.store_id does not name an existing store');
    if (role === 'customer') {
      await this.commands.execute(new RegisterStoreCustomerCommand(data.store_id!, user.id, user.email, user.full_name));
    }
    if (role === 'team_member') {
      await this.commands.execute(new AcceptStoreInvitationCommand(data.invite_token!, user.email, user.id));
    }
    return this.startSession(user, meta);
  }

  signInWithPassword(body: PasswordGrantBody, meta: SessionMeta): Promise<SessionView> {
    return this.scopes.asSystem(() => this.signInAsSystem(body, meta));
  }

  @Transactional()
  private async signInAsSystem(body: PasswordGrantBody, meta: SessionMeta): Promise<SessionView> {
    const user = await this.users.findByEmail(body.email);
    const valid = await this.hasher.verify(user?.password_hash ?? null, body.password);
    if (!user || !valid) throw INVALID_CREDENTIALS();
    return this.startSession(user, meta);
  }

  /** Rotates a refresh token; a token presented twice revokes its whole session (the token family). */
  async refresh(refreshToken: string): Promise<SessionView> {
    const outcome = await this.scopes.asSystem(() => this.rotate(refreshToken));
    // Thrown after commit, so that a reuse's revocation is kept.
    if (outcome instanceof GoTrueError) throw outcome;
    return outcome;
  }

  @Transactional()
  private async rotate(refreshToken: string): Promise<SessionView | GoTrueError> {
    const result = await this.sessions.consumeRefreshToken(refreshToken);
    if (result.kind === 'reused') {
      await this.sessions.revoke(result.sessionId);
      return new GoTrueError(400, 'refresh_token_already_used', 'Invalid Refresh Token: Already Used');
    }
    const user = result.kind === 'rotated' ? await this.users.findById(result.userId) : null;
    if (result.kind === 'unknown' || !user) {
      return new GoTrueError(400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found');
    }
    await this.sessions.markRefreshed(result.sessionId);
    return this.issue(user, result.sessionId, result.tokenId);
  }

  async getUser(principal: UserPrincipal): Promise<UserView> {
    const user = await this.users.findById(principal.userId);
    if (!user) throw new GoTrueError(404, 'user_not_found', 'User from sub claim in JWT does not exist');
    return toUserView(user, this.config.JWT_AUDIENCE);
  }

  logout(principal: UserPrincipal, scope: LogoutScope): Promise<void> {
    return this.scopes.asSystem(() => this.logoutAsSystem(principal, scope));
  }

  @Transactional()
  private async logoutAsSystem(principal: UserPrincipal, scope: LogoutScope): Promise<void> {
    if (scope === 'local') await this.sessions.revoke(principal.sessionId);
    else await this.sessions.revokeAllOf(principal.userId, scope === 'others' ? principal.sessionId : undefined);
  }

  /** Opens a session for a user who has just proven who they are (password, Google); runs in the caller's system scope. */
  @Transactional()
  async startSession(user: UserRow, meta: SessionMeta): Promise<SessionView> {
    const sessionId = await this.sessions.create(user.id, meta);
    await this.users.touchSignIn(user.id);
    return this.issue({ ...user, last_sign_in_at: new Date() }, sessionId, null);
  }

  private async issue(user: UserRow, sessionId: string, parentTokenId: string | null): Promise<SessionView> {
    const refreshToken = randomToken(32);
    await this.sessions.addRefreshToken(sessionId, refreshToken, parentTokenId);
    const { token, expiresAt } = this.tokens.sign(user, sessionId);
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
