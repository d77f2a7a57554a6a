import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { GoTrueError, randomToken, type Role, TenantDb, type UserPrincipal } from '@app/core';
import { AccountMail, type LinkTarget } from './accounts/account-mail.js';
import { AcceptStoreInvitationCommand } from './commands/accept-store-invitation.command.js';
import { RegisterStoreCustomerCommand } from './commands/register-store-customer.command.js';
import { MIN_PASSWORD_LENGTH, type PasswordGrantBody, type SignUpBody, type SignUpData } from './dto/auth.dto.js';
import { AuthStore } from './sessions/auth-store.js';
import { RefreshTokenChain } from './sessions/refresh-token-chain.js';
import type { SessionView } from './sessions/session.js';
import type { SessionMeta } from './sessions/session.repository.js';
import { SessionOpener } from './sessions/session-opener.js';
import { AccountLimits } from './sign-in-limits/account-limits.js';
import { PasswordHasher } from './users/password-hasher.js';
import type { UserView } from './users/user.js';
import { authConfig, type AuthConfig } from './auth.config.js';

export type LogoutScope = 'global' | 'local' | 'others';

/** What a sign-up asks for: `confirmed` when the address need not be confirmed (AUTH_CONFIRM_EMAIL off). */
export interface SignUpAccount {
  email: string;
  passwordHash: string | null;
  data: SignUpData;
  confirmed: boolean;
}

/** A sign-up's account: `email_taken` (nothing written), or made (or reset) and bound to a new session of it. */
export type Registered =
  { outcome: 'email_taken' } | { outcome: 'created' | 'unconfirmed'; principal: UserPrincipal; refreshToken: string };

const INVALID_CREDENTIALS = () => new GoTrueError(400, 'invalid_credentials', 'Invalid login credentials');
const ALREADY_USED = () => new GoTrueError(400, 'refresh_token_already_used', 'Invalid Refresh Token: Already Used');

/**
 * Sign-up, sign-in, refresh rotation and logout: the GoTrue subset of the contract. Everything runs
 * on the request login: what crosses users goes through the database's narrow auth functions
 * (AuthStore); once a session is open or rotated, the transaction is bound to it and the rest (the
 * user row, a customer's record, an accepted invitation) runs under row-level security as that user.
 * With e-mail confirmation on (AUTH_CONFIRM_EMAIL), a sign-up answers the user without a session and
 * mails a confirmation; password sign-in then answers `email_not_confirmed` until it is used.
 */
@Injectable()
export class AuthService {
  constructor(
    private readonly store: AuthStore,
    private readonly sessions: SessionOpener,
    private readonly hasher: PasswordHasher,
    private readonly commands: CommandBus,
    @Inject(authConfig.KEY) private readonly config: AuthConfig,
    private readonly db: TenantDb,
    private readonly accountMail: AccountMail,
    private readonly limits: AccountLimits,
    private readonly refreshTokens: RefreshTokenChain,
  ) {}

  async signUp(body: SignUpBody, meta: SessionMeta, target: LinkTarget): Promise<SessionView | UserView> {
    if (body.password.length < MIN_PASSWORD_LENGTH) {
      throw new GoTrueError(422, 'weak_password', `Password should be at least ${MIN_PASSWORD_LENGTH} characters.`);
    }
    const data = body.data ?? {};
    const role = this.checkSignUpData(data);
    const confirm = this.config.requireEmailConfirmation;
    // A confirmation is an e-mail to that address: sign-ups cannot be used to flood it.
    if (confirm) await this.limits.mailingAddress(body.email);
    const passwordHash = await this.hasher.hash(body.password);
    return this.sessions.anonymous(async () => {
      const account = { email: body.email, passwordHash, data, confirmed: !confirm };
      const registered = await this.register(account, meta);
      if (registered.outcome === 'email_taken') {
        // GoTrue's answer when confirmation is on: the shape of a new user, so it says nothing about the address.
        if (confirm) return this.lookalikeUser(body.email, role, data);
        throw new GoTrueError(422, 'user_already_exists', 'User already registered');
      }
      if (!confirm) return this.sessions.view(registered.principal, registered.refreshToken);
      // The session only served to write the account's rows as that user: it ends before anyone sees it.
      await this.accountMail.issue('signup', body.email, target);
      const user = await this.sessions.user(registered.principal.userId);
      await this.store.endSessions('local');
      return user;
    });
  }

  /** The role a sign-up's `data` asks for; 400 `validation_failed` for a contradictory one. */
  checkSignUpData(data: SignUpData): Exclude<Role, 'admin'> {
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
    return data.role === 'customer' ? 'customer' : data.invite_token ? 'team_member' : 'merchant';
  }

  /**
   * Sign-up's account, in the caller's anonymous transaction (sign-up and POST /otp): made as `data`
   * says (or an unconfirmed one of the address given this password), the transaction bound to a new
   * session of it, and a customer's record or the accepted invitation written as that user.
   * `email_taken` (nothing written) when a confirmed account has the address.
   */
  async register(account: SignUpAccount, meta: SessionMeta): Promise<Registered> {
    const { email, passwordHash, data, confirmed } = account;
    const role = this.checkSignUpData(data);
    const created = await this.store.createAccount({
      email,
      passwordHash,
      role,
      fullName: data.full_name ?? null,
      provider: 'email',
      storeId: role === 'customer' ? data.store_id! : null,
      confirmed,
    });
    if (created.outcome === 'email_taken') return created;
    if (created.outcome === 'unknown_store')
      throw new GoTrueError(400, 'validation_failed', 'data.store_id does not name an existing store');
    const refreshToken = randomToken(32);
    const principal = await this.sessions.openBound(created.userId, email, role, refreshToken, meta);
    if (created.outcome === 'created' && role === 'customer') {
      const fullName = data.full_name ?? null;
      await this.commands.execute(new RegisterStoreCustomerCommand(data.store_id!, created.userId, email, fullName));
    }
    if (created.outcome === 'created' && role === 'team_member') {
      await this.commands.execute(new AcceptStoreInvitationCommand(data.invite_token!, email, created.userId));
    }
    return { outcome: created.outcome, principal, refreshToken };
  }

  async signInWithPassword(body: PasswordGrantBody, meta: SessionMeta): Promise<SessionView> {
    const candidate = await this.sessions.anonymous(() => this.store.passwordCandidate(body.email));
    const valid = await this.hasher.verify(candidate?.passwordHash ?? null, body.password);
    if (!candidate || !valid) throw INVALID_CREDENTIALS();
    // Said only to whoever knows the password.
    if (this.config.requireEmailConfirmation && !candidate.emailConfirmed) {
      throw new GoTrueError(400, 'email_not_confirmed', 'Email not confirmed');
    }
    return this.sessions.anonymous(() => this.sessions.start(candidate.userId, meta));
  }

  /**
   * Google vouched for the address: its account (made a merchant when new, its address confirmed; a
   * password someone set on that address before is cleared and its sessions end) and a new session.
   */
  signInWithGoogle(email: string, fullName: string | null, meta: SessionMeta): Promise<SessionView> {
    return this.sessions.anonymous(async () => {
      const userId = await this.store.googleAccount(email, fullName);
      const refreshToken = randomToken(32);
      const principal = await this.sessions.openBound(userId, email, 'merchant', refreshToken, meta);
      return this.sessions.view(principal, refreshToken);
    });
  }

  /**
   * Rotates a refresh token. A token presented again within AUTH_REFRESH_REUSE_INTERVAL of its own
   * rotation returns its session's current refresh token (the latest of the chain) with a new access
   * token, and changes nothing; presented later, it revokes its whole session (the token family).
   */
  async refresh(refreshToken: string): Promise<SessionView> {
    const outcome = await this.sessions.anonymous(async (): Promise<SessionView | GoTrueError> => {
      const next = this.refreshTokens.child(refreshToken);
      const rotation = await this.store.rotate(refreshToken, next, this.config.AUTH_REFRESH_REUSE_INTERVAL);
      if (rotation.kind === 'unknown')
        return new GoTrueError(400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found');
      if (rotation.kind === 'reused') return ALREADY_USED();
      let current = next;
      if (rotation.kind === 'current') {
        const recomputed = this.refreshTokens.descendant(refreshToken, rotation.hops, rotation.currentHash);
        // A current token that cannot be recomputed (one made before tokens were derived): refused, nothing revoked.
        if (recomputed === null) return ALREADY_USED();
        current = recomputed;
      }
      const principal: UserPrincipal = {
        kind: 'user',
        userId: rotation.userId,
        email: '',
        role: 'merchant',
        sessionId: rotation.sessionId,
      };
      await this.sessions.bind(principal);
      return this.sessions.view(principal, current);
    });
    // Thrown after commit, so that a reuse's revocation is kept.
    if (outcome instanceof GoTrueError) throw outcome;
    return outcome;
  }

  getUser(principal: UserPrincipal): Promise<UserView> {
    return this.sessions.user(principal.userId);
  }

  /** As the signed-in user (its request scope): the database ends the bound session's sessions. */
  async logout(_principal: UserPrincipal, scope: LogoutScope): Promise<void> {
    await this.db.transaction(() => this.store.endSessions(scope));
  }

  private lookalikeUser(email: string, role: Exclude<Role, 'admin'>, data: SignUpBody['data'] & object): UserView {
    const now = new Date().toISOString();
    return {
      id: randomUUID(),
      aud: this.config.JWT_AUDIENCE,
      email,
      role,
      app_metadata: {
        role,
        provider: 'email',
        providers: ['email'],
        ...(role === 'customer' ? { store_id: data.store_id } : {}),
      },
      user_metadata: data.full_name ? { full_name: data.full_name } : {},
      created_at: now,
      updated_at: now,
      last_sign_in_at: null,
      email_confirmed_at: null,
      confirmed_at: null,
      confirmation_sent_at: now,
    };
  }
}
