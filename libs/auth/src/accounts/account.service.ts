import { Inject, Injectable } from '@nestjs/common';
import { GoTrueError, hashToken, TenantDb, type UserPrincipal } from '@app/core';
import { MIN_PASSWORD_LENGTH } from '../dto/auth.dto.js';
import type { ResendBody, UpdateUserBody, VerifyBody } from '../dto/account.dto.js';
import type { OtpBody } from '../dto/otp.dto.js';
import { AuthService } from '../auth.service.js';
import { FlowStates } from '../pkce/flow-states.js';
import type { PkceChallenge } from '../pkce/pkce.dto.js';
import { AuthStore, type TokenKind, type VerifiedToken } from '../sessions/auth-store.js';
import type { SessionView } from '../sessions/session.js';
import type { SessionMeta } from '../sessions/session.repository.js';
import { SessionOpener } from '../sessions/session-opener.js';
import { AccountLimits } from '../sign-in-limits/account-limits.js';
import { SignInLimiter } from '../sign-in-limits/sign-in-limiter.js';
import { PasswordHasher } from '../users/password-hasher.js';
import type { UserView } from '../users/user.js';
import { UserRepository } from '../users/user.repository.js';
import { AccountMail, hashCode } from './account-mail.js';
import { authConfig, type AuthConfig } from '../auth.config.js';

/** GoTrue's answer to a link or code that is unknown, used or expired. */
export const OTP_EXPIRED = () => new GoTrueError(403, 'otp_expired', 'Token has expired or is invalid');
const EMAIL_EXISTS = () =>
  new GoTrueError(422, 'email_exists', 'A user with this email address has already been registered');

/**
 * Where an e-mailed link leads (with `pkce`, back with an auth code instead of a session), and who
 * asks (the client address, for the limits and the new session).
 */
export interface AccountRequest {
  meta: SessionMeta;
  ip: string;
  redirectTo: string;
  pkce?: PkceChallenge;
}

/** What a used link or code gives: a session, or (a link whose e-mail was asked for with PKCE) an auth code. */
export type Verified = { session: SessionView } | { code: string };

/** The one-time tokens a verification type may use, in order: `email` is the code of a magic link or of a sign-up. */
const TOKEN_KINDS: Record<Exclude<VerifyBody['type'], 'invite'>, TokenKind[]> = {
  signup: ['signup'],
  recovery: ['recovery'],
  email_change: ['email_change'],
  magiclink: ['magiclink'],
  email: ['magiclink', 'signup'],
};

/**
 * The account routes of /auth/v1: changing one's password, address and profile (PUT /user), asking
 * for a recovery e-mail (POST /recover), another confirmation (POST /resend), a magic link (POST /otp),
 * and using an e-mailed link or code (POST and GET /verify). Each change and the e-mail it causes
 * commit together.
 */
@Injectable()
export class AccountService {
  constructor(
    private readonly store: AuthStore,
    private readonly sessions: SessionOpener,
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
    private readonly accountMail: AccountMail,
    private readonly limits: AccountLimits,
    private readonly signInLimiter: SignInLimiter,
    @Inject(authConfig.KEY) private readonly config: AuthConfig,
    private readonly db: TenantDb,
    private readonly flows: FlowStates,
    private readonly auth: AuthService,
  ) {}

  /**
   * PUT /user. A new password needs the current one (`current_password`, counted as a sign-in attempt)
   * or a session signed in within AUTH_RECENT_SIGN_IN (as after a recovery link), and ends the user's
   * other sessions. A new address is confirmed on that address first (AUTH_CONFIRM_EMAIL), or taken at
   * once, and announced to the old one. `data` sets the name and metadata.
   */
  async updateUser(principal: UserPrincipal, body: UpdateUserBody, request: AccountRequest): Promise<UserView> {
    const newEmail =
      body.email !== undefined && body.email.toLowerCase() !== principal.email.toLowerCase() ? body.email : undefined;
    if (principal.role === 'admin' && (body.password !== undefined || newEmail !== undefined)) {
      throw new GoTrueError(
        422,
        'validation_failed',
        "The admin's e-mail and password are ADMIN_EMAIL and ADMIN_PASSWORD: change them there and restart",
      );
    }
    const password = body.password !== undefined ? await this.newPassword(principal, body, request.ip) : undefined;
    if (newEmail !== undefined) await this.limits.mailing(request.ip, newEmail);
    return this.db.transaction(async () => {
      if (body.data !== undefined) {
        const { full_name: fullName, ...metadata } = body.data;
        await this.users.updateProfile(principal.userId, fullName as string | null | undefined, metadata);
      }
      if (password) {
        const outcome = await this.store.setPassword(
          principal.userId,
          password.hash,
          password.checked ? null : this.config.AUTH_RECENT_SIGN_IN,
        );
        if (outcome === 'reauthentication_needed') {
          throw new GoTrueError(
            400,
            'reauthentication_needed',
            'Password update requires reauthentication: send current_password',
          );
        }
        // Said only once the change is allowed (rolled back here): else a stale session could test guesses with it.
        if (password.same)
          throw new GoTrueError(422, 'same_password', 'New password should be different from the old password.');
      }
      if (newEmail !== undefined) await this.changeEmail(principal, newEmail, request);
      return this.sessions.user(principal.userId);
    });
  }

  /** POST /recover: 200 whatever the address; a recovery e-mail when an account has it. */
  async recover(email: string, request: AccountRequest): Promise<Record<string, never>> {
    await this.limits.mailing(request.ip, email);
    await this.sessions.anonymous(() => this.accountMail.issue('recovery', email, request));
    return {};
  }

  /**
   * POST /resend: a new sign-up confirmation (unconfirmed accounts) or e-mail change confirmation (pending ones); 200
   * either way.
   */
  async resend(body: ResendBody, request: AccountRequest): Promise<Record<string, never>> {
    await this.limits.mailing(request.ip, body.email);
    await this.sessions.anonymous(() => this.accountMail.issue(body.type, body.email, request));
    return {};
  }

  /**
   * POST /otp: 200 `{}` whatever the address; a magic link and code when an account has it. With
   * `create_user` (the default) a new address gets an account as sign-up makes it from `data` (a
   * merchant, or a customer of `data.store_id`), without a password and confirmed when the link or
   * code is used; an address whose account was never confirmed is reset so (its password cleared).
   */
  async otp(body: OtpBody, request: AccountRequest): Promise<Record<string, never>> {
    const createUser = body.create_user ?? true;
    const data = body.data ?? {};
    if (createUser) this.auth.checkSignUpData(data);
    await this.limits.mailing(request.ip, body.email);
    await this.sessions.anonymous(async () => {
      if (createUser) {
        const account = { email: body.email, passwordHash: null, data, confirmed: false };
        const registered = await this.auth.register(account, request.meta);
        if (registered.outcome !== 'email_taken') {
          await this.accountMail.issue('magiclink', body.email, request, true);
          // The session only served to write the account's rows as that user.
          await this.store.endSessions('local');
          return;
        }
      }
      await this.accountMail.issue('magiclink', body.email, request);
    });
    return {};
  }

  /**
   * POST /verify: uses a link's token or an address's code once, does what it stands for, and signs
   * the user in. An unknown, used or expired one: 403 `otp_expired`.
   */
  async verify(body: VerifyBody, request: AccountRequest): Promise<SessionView> {
    const verified = await this.use(body, request, false);
    return (verified as { session: SessionView }).session;
  }

  /** GET /verify (an e-mail's link): as POST, but an auth code instead of the session when a PKCE challenge waits. */
  verifyLink(body: VerifyBody, request: AccountRequest): Promise<Verified> {
    return this.use(body, request, true);
  }

  private async use(body: VerifyBody, request: AccountRequest, link: boolean): Promise<Verified> {
    await this.limits.verifying(request.ip);
    const token = body.token_hash ?? (body.email === undefined ? body.token : undefined);
    if (body.type === 'invite') {
      if (token === undefined)
        throw new GoTrueError(400, 'validation_failed', 'An invitation is accepted with the token_hash of its link');
      return { session: await this.acceptInvitation(token, request.meta) };
    }
    const kinds = TOKEN_KINDS[body.type];
    if (token !== undefined) return this.useToken(kinds, { tokenHash: hashToken(token) }, request.meta, link);
    if (body.email === undefined || body.token === undefined) {
      throw new GoTrueError(400, 'validation_failed', 'Verify requires either a token_hash, or an email and its token');
    }
    const attempt = await this.limits.codeAttempt(body.email);
    const proof = { email: body.email, codeHash: hashCode(body.token.trim()) };
    const verified = await this.useToken(kinds, proof, request.meta, false);
    await this.limits.codeRight(attempt);
    return verified;
  }

  /** Uses the token or code as the first of `kinds` it is live for; `link`: an auth code when a challenge waits. */
  private useToken(
    kinds: TokenKind[],
    proof: { tokenHash: Buffer } | { email: string; codeHash: Buffer },
    meta: SessionMeta,
    link: boolean,
  ): Promise<Verified> {
    return this.sessions.anonymous(async () => {
      let verified: VerifiedToken = { outcome: 'invalid' };
      for (const kind of kinds) {
        verified = await this.store.verifyToken(kind, proof);
        if (verified.outcome !== 'invalid') break;
      }
      if (verified.outcome === 'email_taken') throw EMAIL_EXISTS();
      if (verified.outcome !== 'verified') throw OTP_EXPIRED();
      if (verified.oldEmail) await this.accountMail.emailChanged(verified.userId, verified.oldEmail, verified.email);
      if (link && 'tokenHash' in proof) {
        const code = await this.flows.issueCode(verified.userId, { linkHash: proof.tokenHash });
        if (code !== null) return { code };
      }
      return { session: await this.sessions.start(verified.userId, meta) };
    });
  }

  private acceptInvitation(token: string, meta: SessionMeta): Promise<SessionView> {
    return this.sessions.anonymous(async () => {
      const accepted = await this.store.acceptInvitationLink(hashToken(token));
      if (accepted.outcome === 'wrong_role') {
        throw new GoTrueError(
          422,
          'validation_failed',
          'The invited address belongs to an account that cannot be a team member',
        );
      }
      if (accepted.outcome !== 'accepted') throw OTP_EXPIRED();
      return this.sessions.start(accepted.userId, meta);
    });
  }

  /**
   * The new password's hash; `checked` when the current password was given and right, `same` when the
   * new one is the current one.
   */
  private async newPassword(
    principal: UserPrincipal,
    body: UpdateUserBody,
    ip: string,
  ): Promise<{ hash: string; checked: boolean; same: boolean }> {
    const password = body.password!;
    if (password.length < MIN_PASSWORD_LENGTH) {
      throw new GoTrueError(422, 'weak_password', `Password should be at least ${MIN_PASSWORD_LENGTH} characters.`);
    }
    const candidate = await this.sessions.anonymous(() => this.store.passwordCandidate(principal.email));
    const current = candidate?.userId === principal.userId ? candidate.passwordHash : null;
    if (body.current_password !== undefined) {
      const attempt = await this.signInLimiter.reserve(principal.email, ip);
      const right = await this.hasher.verify(current, body.current_password);
      if (!right) {
        const wrong = new GoTrueError(400, 'invalid_credentials', 'current_password is not the current password');
        await this.signInLimiter.failed(attempt, wrong);
        throw wrong;
      }
      await this.signInLimiter.succeeded(attempt);
    }
    // With the current password checked, comparing the texts says as much as another argon2 run.
    const same =
      body.current_password !== undefined
        ? body.current_password === password
        : current !== null && (await this.hasher.verify(current, password));
    return { hash: await this.hasher.hash(password), checked: body.current_password !== undefined, same };
  }

  private async changeEmail(principal: UserPrincipal, newEmail: string, request: AccountRequest): Promise<void> {
    if (this.config.requireEmailConfirmation) {
      const requested = await this.accountMail.requestEmailChange(principal.userId, principal.email, newEmail, request);
      if (!requested) throw EMAIL_EXISTS();
      return;
    }
    const changed = await this.store.changeEmail(principal.userId, newEmail);
    if (changed.outcome === 'email_taken') throw EMAIL_EXISTS();
    await this.accountMail.emailChanged(principal.userId, changed.oldEmail, newEmail);
  }
}
