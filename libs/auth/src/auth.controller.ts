import { Controller, Get, HttpCode, Inject, Logger, Post, Put, Req, Res, UseInterceptors } from '@nestjs/common';
import { ApiExtraModels, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  CurrentUser,
  GoTrueError,
  httpConfig,
  Public,
  PublicKeyAllowed,
  type HttpConfig,
  type UserPrincipal,
  Body,
  Query,
} from '@app/core';
import { authConfig, type AuthConfig } from './auth.config.js';
import { AccountService, type AccountRequest, type Verified } from './accounts/account.service.js';
import { AuthService, type LogoutScope } from './auth.service.js';
import { parseVerifyBody, RecoverBody, ResendBody, UpdateUserBody, VerifyBody } from './dto/account.dto.js';
import { OtpBody } from './dto/otp.dto.js';
import { parseGoTrueBody, PasswordGrantBody, RefreshGrantBody, SignUpBody } from './dto/auth.dto.js';
import { GoogleSignInService } from './google/google-sign-in.service.js';
import { PkceGrant } from './pkce/pkce-grant.service.js';
import { type PkceChallenge, pkceChallenge, PkceGrantBody } from './pkce/pkce.dto.js';
import { SessionView } from './sessions/session.js';
import type { SessionMeta } from './sessions/session.repository.js';
import { SignInLimitInterceptor } from './sign-in-limits/sign-in-limit.interceptor.js';
import { UserView } from './users/user.js';
import { ApiRecover, ApiResend, ApiOtp, ApiVerify, ApiVerifyLink } from './auth-email.openapi.js';
import { ApiAuthorize, ApiGoogleCallback } from './auth-google.openapi.js';
import { ApiGetUser, ApiLogout, ApiSignUp, ApiToken, ApiUpdateUser } from './auth.openapi.js';

function sessionMeta(request: FastifyRequest): SessionMeta {
  return { userAgent: request.headers['user-agent'], ip: request.ip };
}

/**
 * Where a used link or Google's callback sends the browser: with an auth code, `redirect_to?code=…`
 * (PKCE); with a session, its tokens in the URL fragment (the implicit flow), `type` added for links.
 */
function redirectWith(target: URL, verified: Verified, type?: string): string {
  if ('code' in verified) {
    target.searchParams.set('code', verified.code);
    return target.toString();
  }
  const { session } = verified;
  target.hash = new URLSearchParams({
    access_token: session.access_token,
    expires_at: String(session.expires_at),
    expires_in: String(session.expires_in),
    refresh_token: session.refresh_token,
    token_type: session.token_type,
    ...(type ? { type } : {}),
  }).toString();
  return target.toString();
}

type Empty = Record<string, never>;
const SIGN_IN_FAILED = () => new GoTrueError(500, 'unexpected_failure', 'Sign-in failed');

/** GoTrue-compatible authentication, so @supabase/supabase-js works unmodified. */
@ApiTags('auth')
@ApiExtraModels(SignUpBody, PasswordGrantBody, RefreshGrantBody, PkceGrantBody)
@Controller('auth/v1')
export class AuthController {
  private readonly logger = new Logger(AuthController.name);

  constructor(
    private readonly auth: AuthService,
    private readonly accounts: AccountService,
    private readonly google: GoogleSignInService,
    private readonly pkce: PkceGrant,
    @Inject(authConfig.KEY) private readonly config: AuthConfig,
    @Inject(httpConfig.KEY) private readonly http: HttpConfig,
  ) {}

  private accountRequest(request: FastifyRequest, redirectTo: unknown, pkce?: PkceChallenge): AccountRequest {
    const target = this.config.redirectTarget(redirectTo, this.http);
    return { meta: sessionMeta(request), ip: request.ip, redirectTo: target, pkce };
  }

  @Post('signup')
  @HttpCode(200)
  @PublicKeyAllowed()
  @ApiSignUp()
  signUp(
    @Body() body: unknown,
    @Query('redirect_to') redirectTo: unknown,
    @Req() request: FastifyRequest,
  ): Promise<SessionView | UserView> {
    const parsed = parseGoTrueBody(SignUpBody, body);
    const target = this.config.redirectTarget(redirectTo, this.http);
    return this.auth.signUp(parsed, sessionMeta(request), { redirectTo: target, pkce: pkceChallenge(parsed) });
  }

  @Post('token')
  @HttpCode(200)
  @PublicKeyAllowed()
  @UseInterceptors(SignInLimitInterceptor)
  @ApiToken()
  token(
    @Query('grant_type') grantType: string | undefined,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ): Promise<SessionView> {
    if (grantType === 'password')
      return this.auth.signInWithPassword(parseGoTrueBody(PasswordGrantBody, body), sessionMeta(request));
    if (grantType === 'refresh_token') return this.auth.refresh(parseGoTrueBody(RefreshGrantBody, body).refresh_token);
    if (grantType === 'pkce') return this.pkce.exchange(parseGoTrueBody(PkceGrantBody, body), sessionMeta(request));
    throw new GoTrueError(400, 'validation_failed', 'grant_type must be password, refresh_token or pkce');
  }

  @Get('user')
  @ApiGetUser()
  user(@CurrentUser() principal: UserPrincipal): Promise<UserView> {
    return this.auth.getUser(principal);
  }

  @Put('user')
  @ApiUpdateUser()
  updateUser(
    @CurrentUser() principal: UserPrincipal,
    @Body() body: unknown,
    @Query('redirect_to') redirectTo: unknown,
    @Req() request: FastifyRequest,
  ): Promise<UserView> {
    const parsed = parseGoTrueBody(UpdateUserBody, body);
    return this.accounts.updateUser(principal, parsed, this.accountRequest(request, redirectTo, pkceChallenge(parsed)));
  }

  @Post('recover')
  @HttpCode(200)
  @PublicKeyAllowed()
  @ApiRecover()
  recover(
    @Body() body: unknown,
    @Query('redirect_to') redirectTo: unknown,
    @Req() request: FastifyRequest,
  ): Promise<Record<string, never>> {
    const parsed = parseGoTrueBody(RecoverBody, body);
    return this.accounts.recover(parsed.email, this.accountRequest(request, redirectTo, pkceChallenge(parsed)));
  }

  @Post('resend')
  @HttpCode(200)
  @PublicKeyAllowed()
  @ApiResend()
  resend(
    @Body() body: unknown,
    @Query('redirect_to') redirectTo: unknown,
    @Req() request: FastifyRequest,
  ): Promise<Record<string, never>> {
    const parsed = parseGoTrueBody(ResendBody, body);
    return this.accounts.resend(parsed, this.accountRequest(request, redirectTo, pkceChallenge(parsed)));
  }

  @Post('otp')
  @HttpCode(200)
  @PublicKeyAllowed()
  @ApiOtp()
  otp(@Body() body: unknown, @Query('redirect_to') to: unknown, @Req() request: FastifyRequest): Promise<Empty> {
    const parsed = parseGoTrueBody(OtpBody, body);
    return this.accounts.otp(parsed, this.accountRequest(request, to, pkceChallenge(parsed)));
  }

  @Post('verify')
  @HttpCode(200)
  @PublicKeyAllowed()
  @ApiVerify()
  verify(@Body() body: unknown, @Req() request: FastifyRequest): Promise<SessionView> {
    return this.accounts.verify(parseVerifyBody(body), this.accountRequest(request, undefined));
  }

  @Get('verify')
  @Public()
  @ApiVerifyLink()
  async verifyLink(
    @Query() query: Record<string, unknown>,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const target = new URL(this.config.redirectTarget(query.redirect_to, this.http));
    try {
      const body: VerifyBody = parseVerifyBody({ type: query.type, token_hash: query.token });
      const verified = await this.accounts.verifyLink(body, this.accountRequest(request, undefined));
      void reply.redirect(redirectWith(target, verified, body.type), 302);
    } catch (error) {
      if (!(error instanceof GoTrueError)) this.logger.error({ err: error }, 'e-mail link verification failed');
      const failure =
        error instanceof GoTrueError
          ? error
          : new GoTrueError(500, 'unexpected_failure', 'The link could not be used; try again');
      const status = failure.getStatus();
      target.hash = new URLSearchParams({
        error: status >= 500 ? 'server_error' : 'access_denied',
        error_code: failure.errorCode,
        error_description: status === 403 ? 'Email link is invalid or has expired' : failure.message,
      }).toString();
      void reply.redirect(target.toString(), 302);
    }
  }

  @Post('logout')
  @HttpCode(204)
  @ApiLogout()
  async logout(@CurrentUser() principal: UserPrincipal, @Query('scope') scope: string | undefined): Promise<void> {
    const chosen = scope ?? 'global';
    if (!['global', 'local', 'others'].includes(chosen)) {
      throw new GoTrueError(400, 'validation_failed', 'scope must be global, local or others');
    }
    await this.auth.logout(principal, chosen as LogoutScope);
  }

  @Get('authorize')
  @Public()
  @ApiAuthorize()
  async authorize(
    @Query('provider') provider: string | undefined,
    @Query('redirect_to') redirectTo: string | undefined,
    @Query() query: Record<string, unknown>,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    if (provider !== 'google')
      throw new GoTrueError(400, 'validation_failed', 'Unsupported provider: only google is available');
    const target = redirectTo ?? this.http.baseUrl;
    if (!this.http.allowsRedirectTo(target)) {
      throw new GoTrueError(
        400,
        'validation_failed',
        'redirect_to is not an allowed origin (ALLOWED_REDIRECT_ORIGINS)',
      );
    }
    void reply.redirect(await this.google.authorizationUrl(target, pkceChallenge(query)), 302);
  }

  @Get('callback')
  @Public()
  @ApiGoogleCallback()
  async callback(
    @Query() query: Record<string, string>,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const pending = typeof query.state === 'string' ? await this.google.takePending(query.state) : null;
    if (!pending) throw new GoTrueError(400, 'bad_oauth_state', 'OAuth state is missing, expired or already used');
    const target = new URL(pending.redirectTo);
    let failure: Record<string, string>;
    if (query.error) {
      failure = { error: query.error, error_description: query.error_description ?? 'Sign-in was not completed' };
    } else {
      try {
        const verified = await this.google.complete(query, pending, sessionMeta(request));
        void reply.redirect(redirectWith(target, verified), 302);
        return;
      } catch (error) {
        const known = error instanceof GoTrueError ? error : SIGN_IN_FAILED();
        failure = { error: known.errorCode, error_description: known.message };
      }
    }
    // A server taking part in PKCE never sees the fragment: its failures go in the query, as its code would.
    if (pending.pkce) for (const [key, value] of Object.entries(failure)) target.searchParams.set(key, value);
    else target.hash = new URLSearchParams(failure).toString();
    void reply.redirect(target.toString(), 302);
  }
}
