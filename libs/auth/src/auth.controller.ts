import { Body, Controller, Get, HttpCode, Inject, Logger, Post, Put, Query, Req, Res, UseInterceptors } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiExtraModels,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiSecurity,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentUser, GoTrueError, httpConfig, Public, PublicKeyAllowed, type HttpConfig, type UserPrincipal } from '@app/core';
import { authConfig, type AuthConfig } from './auth.config.js';
import { AccountService, type AccountRequest, type Verified } from './accounts/account.service.js';
import { AuthService, type LogoutScope } from './auth.service.js';
import { parseVerifyBody, RecoverBody, ResendBody, UpdateUserBody, VerifyBody } from './dto/account.dto.js';
import { OtpBody } from './dto/otp.dto.js';
import { parseGoTrueBody, PasswordGrantBody, RefreshGrantBody, SignUpBody } from './dto/auth.dto.js';
import {
  ApiGoTrueError,
  ApiGoTrueKeyRequired,
  ApiGoTrueRateLimited,
  ApiGoTrueTokenRequired,
  ApiRedirect,
  EMPTY_OBJECT,
  RETRY_AFTER,
} from './dto/gotrue-responses.js';
import { GoogleSignInService } from './google/google-sign-in.service.js';
import { PkceGrant } from './pkce/pkce-grant.service.js';
import { type PkceChallenge, pkceChallenge, PkceGrantBody } from './pkce/pkce.dto.js';
import { SessionView } from './sessions/session.js';
import type { SessionMeta } from './sessions/session.repository.js';
import { SignInLimitInterceptor } from './sign-in-limits/sign-in-limit.interceptor.js';
import { UserView } from './users/user.js';

const USER_EXAMPLE: UserView = {
  id: '0b6f3c1e-8d2a-4e57-9a36-2c1f0e7d9b44',
  aud: 'authenticated',
  email: 'ada@example.com',
  role: 'merchant',
  app_metadata: { role: 'merchant', provider: 'email', providers: ['email'] },
  user_metadata: { full_name: 'Ada Merchant' },
  created_at: '2026-11-22T10:00:00.000Z',
  updated_at: '2026-11-22T10:00:00.000Z',
  last_sign_in_at: '2026-11-22T10:00:00.000Z',
  email_confirmed_at: '2026-11-22T10:00:00.000Z',
  confirmed_at: '2026-11-22T10:00:00.000Z',
};
const SESSION_EXAMPLE: SessionView = {
  access_token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9...',
  token_type: 'bearer',
  expires_in: 3600,
  expires_at: 1795000000,
  refresh_token: 'n3Vq2xk8...',
  user: USER_EXAMPLE,
};
const UNCONFIRMED_USER_EXAMPLE: UserView = {
  ...USER_EXAMPLE,
  last_sign_in_at: null,
  email_confirmed_at: null,
  confirmed_at: null,
  confirmation_sent_at: '2026-11-22T10:00:00.000Z',
};
const INVALID_CREDENTIALS = { error_code: 'invalid_credentials', msg: 'Invalid login credentials' };
const VALIDATION_FAILED = { error_code: 'validation_failed', msg: 'Unable to validate email address: invalid format' };
const REDIRECT_TO = {
  name: 'redirect_to',
  type: String,
  required: false,
  description: "Where the e-mail's link sends the browser; must be on ALLOWED_REDIRECT_ORIGINS (else AUTH_SITE_URL)",
  example: 'http://localhost:5173/welcome',
};
/** The 429 of the routes that send e-mail: the general rate limit, or the e-mail limits. */
const ApiMailLimits = () =>
  ApiGoTrueRateLimited(
    '`over_email_send_rate_limit`: too many e-mails to this address or from this client address; `over_request_rate_limit`: too many requests (RATE_LIMIT_PER_MINUTE)',
  );

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

const PKCE_QUERY = [
  {
    name: 'code_challenge',
    type: String,
    required: false,
    description: "PKCE: the challenge of the app's verifier; the callback then returns `redirect_to?code=<auth_code>`",
  },
  {
    name: 'code_challenge_method',
    enum: ['s256', 'plain'],
    required: false,
    description: 'With code_challenge (either case)',
  },
] as const;

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
  @ApiOperation({
    summary: 'Create an account and sign in',
    description:
      'Plain sign-up makes a merchant; `data.role: "customer"` with `data.store_id` a customer of that store; `data.invite_token` a team member of the inviting store. Needs the public API key (`apikey` header). ' +
      'With e-mail confirmation on (AUTH_CONFIRM_EMAIL: production by default) the answer is the user without a session and a confirmation link and code are mailed; ' +
      "an address already confirmed gets the same answer (nothing is mailed), one still unconfirmed takes this sign-up's password and a new confirmation.",
  })
  @ApiBody({ type: SignUpBody })
  @ApiQuery(REDIRECT_TO)
  @ApiExtraModels(SessionView, UserView)
  @ApiOkResponse({
    description: 'The new session; with e-mail confirmation on, the user alone (GoTrue shape)',
    content: {
      'application/json': {
        schema: { oneOf: [{ $ref: getSchemaPath(SessionView) }, { $ref: getSchemaPath(UserView) }] },
        examples: {
          session: { summary: 'Signed in (e-mail confirmation off)', value: SESSION_EXAMPLE },
          unconfirmed: { summary: 'Waiting for the confirmation (AUTH_CONFIRM_EMAIL)', value: UNCONFIRMED_USER_EXAMPLE },
        },
      },
    },
  })
  @ApiGoTrueError(400, '`validation_failed`: a bad field, or `data.store_id` missing or unknown for a customer', VALIDATION_FAILED)
  @ApiGoTrueKeyRequired()
  @ApiGoTrueError(422, '`weak_password`, or `user_already_exists` (with e-mail confirmation off)', {
    error_code: 'weak_password',
    msg: 'Password should be at least 8 characters.',
  })
  @ApiMailLimits()
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
  @ApiOperation({
    summary:
      'Sign in (grant_type=password), rotate a refresh token (grant_type=refresh_token) or exchange a PKCE auth ' +
      'code (grant_type=pkce)',
    description:
      'Refresh tokens are single use. A token presented again within AUTH_REFRESH_REUSE_INTERVAL (10 s) of its own ' +
      "rotation returns the session's current tokens: its latest refresh token (the same for every caller) and a new " +
      'access token, revoking nothing, so concurrent refreshes of one token all succeed with one rotation. ' +
      'Presented later, it revokes its whole session and answers 400 `refresh_token_already_used`. Password ' +
      'attempts are limited per client address, and failures per account (429; see docs/api.md § Rate limits).',
  })
  @ApiQuery({ name: 'grant_type', enum: ['password', 'refresh_token', 'pkce'] })
  @ApiBody({
    schema: {
      oneOf: [
        { $ref: getSchemaPath(PasswordGrantBody) },
        { $ref: getSchemaPath(RefreshGrantBody) },
        { $ref: getSchemaPath(PkceGrantBody) },
      ],
    },
  })
  @ApiOkResponse({
    description:
      'A session. grant_type=pkce exchanges the `code` an e-mailed link or the Google callback added to ' +
      '`redirect_to` (the flow started with a `code_challenge`) with the verifier of that challenge, once and ' +
      'within 5 minutes, for a new session; `redirect_type` names the kind of link used (e.g. `recovery`).',
    type: SessionView,
  })
  @ApiGoTrueError(
    400,
    '`invalid_credentials`, `email_not_confirmed` (the right password, an address not confirmed yet), ' +
      '`refresh_token_not_found`, `refresh_token_already_used`, `flow_state_expired` (an auth code older than 5 ' +
      'minutes), `validation_failed`',
    INVALID_CREDENTIALS,
  )
  @ApiGoTrueKeyRequired()
  @ApiGoTrueError(403, "`bad_code_verifier`: the verifier does not fit the code's challenge (the code stays usable)", {
    error_code: 'bad_code_verifier',
    msg: 'code challenge does not match previously saved code verifier',
  })
  @ApiGoTrueError(404, '`flow_state_not_found`: an unknown or already used auth code', {
    error_code: 'flow_state_not_found',
    msg: 'invalid flow state, no valid flow state found',
  })
  @ApiGoTrueRateLimited(
    '`over_request_rate_limit`: too many password attempts from this client address or failures for this account, or too many requests',
  )
  @ApiGoTrueError(
    503,
    '`service_unavailable`: password attempts cannot be counted while Redis is unreachable',
    { error_code: 'service_unavailable', msg: 'This is briefly unavailable, retry in a few seconds' },
    RETRY_AFTER,
  )
  token(@Query('grant_type') grantType: string | undefined, @Body() body: unknown, @Req() request: FastifyRequest): Promise<SessionView> {
    if (grantType === 'password') return this.auth.signInWithPassword(parseGoTrueBody(PasswordGrantBody, body), sessionMeta(request));
    if (grantType === 'refresh_token') return this.auth.refresh(parseGoTrueBody(RefreshGrantBody, body).refresh_token);
    if (grantType === 'pkce') return this.pkce.exchange(parseGoTrueBody(PkceGrantBody, body), sessionMeta(request));
    throw new GoTrueError(400, 'validation_failed', 'grant_type must be password, refresh_token or pkce');
  }

  @Get('user')
  @ApiBearerAuth()
  @ApiOperation({
    summary: 'The signed-in user',
    description:
      "The user of the access token, as stored now (supabase-js `auth.getUser()`): a change made since the token was issued shows here, not in the token's claims.",
  })
  @ApiOkResponse({ description: 'The user', type: UserView })
  @ApiGoTrueTokenRequired()
  @ApiGoTrueRateLimited()
  user(@CurrentUser() principal: UserPrincipal): Promise<UserView> {
    return this.auth.getUser(principal);
  }

  @Put('user')
  @ApiBearerAuth()
  @ApiOperation({
    summary: "Change the signed-in user's password, e-mail address or metadata",
    description:
      'A new `password` needs `current_password` (a wrong one counts as a failed sign-in) or a session signed in within AUTH_RECENT_SIGN_IN, ' +
      "as after a recovery link; it ends the user's other sessions. A new `email` is mailed a confirmation link and code and shows as " +
      '`new_email` until used (AUTH_CONFIRM_EMAIL), or applies at once; the old address is told when it changes. `data` is merged into `user_metadata`.',
  })
  @ApiBody({ type: UpdateUserBody })
  @ApiQuery(REDIRECT_TO)
  @ApiOkResponse({
    description: 'The user; a new address waiting for its confirmation shows as `new_email`',
    content: {
      'application/json': {
        schema: { $ref: getSchemaPath(UserView) },
        example: { ...USER_EXAMPLE, new_email: 'ada.new@example.com', email_change_sent_at: '2026-11-22T10:05:00.000Z' },
      },
    },
  })
  @ApiGoTrueError(400, '`reauthentication_needed`, `invalid_credentials` (current_password), `validation_failed`', {
    error_code: 'reauthentication_needed',
    msg: 'Password update requires reauthentication: send current_password',
  })
  @ApiGoTrueTokenRequired()
  @ApiGoTrueError(422, "`weak_password`, `same_password`, `email_exists`; `validation_failed` for the admin's e-mail or password", {
    error_code: 'email_exists',
    msg: 'A user with this email address has already been registered',
  })
  @ApiMailLimits()
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
  @ApiOperation({
    summary: 'Mail a password recovery link and code',
    description:
      'Always `{}`: the answer never says whether an account has the address. When one does, it gets a link (GET /auth/v1/verify, type recovery, signing the browser in at `redirect_to`) and a 6-digit code (POST /auth/v1/verify), valid AUTH_OTP_TTL (1 h) and once; then set the new password with PUT /auth/v1/user.',
  })
  @ApiBody({ type: RecoverBody })
  @ApiQuery(REDIRECT_TO)
  @ApiOkResponse({ description: 'Always `{}`', schema: EMPTY_OBJECT })
  @ApiGoTrueError(400, '`validation_failed`: the e-mail address is missing or malformed', VALIDATION_FAILED)
  @ApiGoTrueKeyRequired()
  @ApiMailLimits()
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
  @ApiOperation({
    summary: 'Mail a sign-up or e-mail change confirmation again',
    description:
      'Always `{}`; a new link and code (the earlier ones stop working) when the address has an unconfirmed sign-up or a pending e-mail change.',
  })
  @ApiBody({ type: ResendBody })
  @ApiQuery(REDIRECT_TO)
  @ApiOkResponse({ description: 'Always `{}`', schema: EMPTY_OBJECT })
  @ApiGoTrueError(400, '`validation_failed`: a missing or bad `type` or e-mail address', VALIDATION_FAILED)
  @ApiGoTrueKeyRequired()
  @ApiMailLimits()
  resend(@Body() body: unknown, @Query('redirect_to') redirectTo: unknown, @Req() request: FastifyRequest): Promise<Record<string, never>> {
    const parsed = parseGoTrueBody(ResendBody, body);
    return this.accounts.resend(parsed, this.accountRequest(request, redirectTo, pkceChallenge(parsed)));
  }

  @Post('otp')
  @HttpCode(200)
  @PublicKeyAllowed()
  @ApiOperation({
    summary: 'Passwordless sign-in: mail a magic link and a 6-digit code',
    description:
      'supabase-js `signInWithOtp`. Always `{}`: the answer never says whether an account has the address. The link ' +
      '(GET /auth/v1/verify, type magiclink) signs the browser in at `redirect_to`; the code is used with POST ' +
      '/auth/v1/verify `{type: "email", email, token}`; both valid AUTH_OTP_TTL (1 h) and once. With `create_user` ' +
      '(default true) a new address gets an account as sign-up makes it from `data` (a merchant, or with ' +
      '`data.role: "customer"` and `data.store_id` a customer of that store), without a password and confirmed once ' +
      'the link or code is used. `create_user: false` mails nothing to an address without a confirmed account. With ' +
      '`code_challenge` the link returns `redirect_to?code=` for grant_type=pkce.',
  })
  @ApiBody({ type: OtpBody })
  @ApiQuery(REDIRECT_TO)
  @ApiOkResponse({ description: 'Always `{}`', schema: EMPTY_OBJECT })
  @ApiGoTrueError(
    400,
    '`validation_failed`: a missing or bad e-mail address, a bad PKCE challenge, or (create_user) `data.store_id` ' +
      'missing or unknown for a customer',
    VALIDATION_FAILED,
  )
  @ApiGoTrueKeyRequired()
  @ApiMailLimits()
  otp(@Body() body: unknown, @Query('redirect_to') to: unknown, @Req() request: FastifyRequest): Promise<Empty> {
    const parsed = parseGoTrueBody(OtpBody, body);
    return this.accounts.otp(parsed, this.accountRequest(request, to, pkceChallenge(parsed)));
  }

  @Post('verify')
  @HttpCode(200)
  @PublicKeyAllowed()
  @ApiOperation({
    summary: "Use an e-mail's link token or code, and sign in",
    description:
      '`{type, token_hash}` (the `token` of the link) or `{type, email, token}` (the 6-digit code; wrong codes are ' +
      'limited per address). Types: `signup` (confirms the address), `recovery` (then set a password with PUT ' +
      "/auth/v1/user), `email_change` (the new address becomes the account's; the old one is told), `invite` (an " +
      "invitation e-mail's link: joins the store, making a team member account when needed), `magiclink` (the link " +
      'of POST /auth/v1/otp), `email` (a 6-digit code of POST /auth/v1/otp, or of a sign-up confirmation). Each ' +
      'works once, within AUTH_OTP_TTL. This answers the session even when the e-mail was asked for with a PKCE ' +
      'challenge.',
  })
  @ApiBody({ type: VerifyBody })
  @ApiOkResponse({ description: 'A session', type: SessionView })
  @ApiGoTrueError(400, '`validation_failed`: neither `token_hash` nor `email` and `token`, or a bad field', {
    error_code: 'validation_failed',
    msg: 'Verify requires either a token_hash, or an email and its token',
  })
  @ApiGoTrueKeyRequired()
  @ApiGoTrueError(403, '`otp_expired`: unknown, used or expired', { error_code: 'otp_expired', msg: 'Token has expired or is invalid' })
  @ApiGoTrueError(422, '`validation_failed`: an invitation to an address whose account cannot be a team member', {
    error_code: 'validation_failed',
    msg: 'The invited address belongs to an account that cannot be a team member',
  })
  @ApiGoTrueRateLimited('`over_request_rate_limit`: too many wrong codes for this address, or too many requests')
  verify(@Body() body: unknown, @Req() request: FastifyRequest): Promise<SessionView> {
    return this.accounts.verify(parseVerifyBody(body), this.accountRequest(request, undefined));
  }

  @Get('verify')
  @Public()
  @ApiSecurity({})
  @ApiOperation({
    summary: "An e-mail's link: uses its token and sends the browser to redirect_to, signed in",
    description:
      '`redirect_to` must be on ALLOWED_REDIRECT_ORIGINS, else the browser goes to AUTH_SITE_URL. When the e-mail ' +
      'was asked for with a PKCE `code_challenge`, the browser goes to `redirect_to?code=<auth_code>` (exchange it ' +
      'with POST /auth/v1/token?grant_type=pkce); otherwise the session is in the URL fragment. Failures go there ' +
      'too: `#error=access_denied&error_code=otp_expired&error_description=…`.',
  })
  @ApiQuery({ name: 'type', enum: ['signup', 'recovery', 'email_change', 'invite', 'magiclink'] })
  @ApiQuery({ name: 'token', type: String, description: "The link's token" })
  @ApiQuery(REDIRECT_TO)
  @ApiRedirect(
    'Always, the link used or not: to `redirect_to` with an auth code (PKCE), the session, or the failure',
    '`redirect_to?code=…` (PKCE), ' +
      '`redirect_to#access_token=…&expires_at=…&expires_in=3600&refresh_token=…&token_type=bearer&type=recovery`, ' +
      'or `#error=access_denied&error_code=otp_expired&error_description=…`',
  )
  @ApiGoTrueRateLimited()
  async verifyLink(@Query() query: Record<string, unknown>, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const target = new URL(this.config.redirectTarget(query.redirect_to, this.http));
    try {
      const body: VerifyBody = parseVerifyBody({ type: query.type, token_hash: query.token });
      const verified = await this.accounts.verifyLink(body, this.accountRequest(request, undefined));
      void reply.redirect(redirectWith(target, verified, body.type), 302);
    } catch (error) {
      if (!(error instanceof GoTrueError)) this.logger.error({ err: error }, 'e-mail link verification failed');
      const failure =
        error instanceof GoTrueError ? error : new GoTrueError(500, 'unexpected_failure', 'The link could not be used; try again');
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
  @ApiBearerAuth()
  @ApiOperation({
    summary: 'End sessions: this one (local), all (global, the default) or all but this one (others)',
    description:
      "An ended session's refresh token stops working at once, and its access tokens are refused (401 `session_not_found`) from the next request on.",
  })
  @ApiQuery({ name: 'scope', enum: ['global', 'local', 'others'], required: false })
  @ApiNoContentResponse({ description: 'Signed out; no body' })
  @ApiGoTrueError(400, '`validation_failed`: an unknown `scope`', {
    error_code: 'validation_failed',
    msg: 'scope must be global, local or others',
  })
  @ApiGoTrueTokenRequired()
  @ApiGoTrueRateLimited()
  async logout(@CurrentUser() principal: UserPrincipal, @Query('scope') scope: string | undefined): Promise<void> {
    const chosen = scope ?? 'global';
    if (!['global', 'local', 'others'].includes(chosen)) {
      throw new GoTrueError(400, 'validation_failed', 'scope must be global, local or others');
    }
    await this.auth.logout(principal, chosen as LogoutScope);
  }

  @Get('authorize')
  @Public()
  @ApiSecurity({})
  @ApiOperation({
    summary: "Start Google sign-in: redirects to Google's consent page (state + PKCE)",
    description:
      'Open it in the browser (supabase-js `signInWithOAuth({ provider: "google" })`). After the consent page ' +
      'Google returns to GET /auth/v1/callback, which sends the browser on to `redirect_to` signed in. Needs ' +
      'GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET on the server. With `code_challenge` (supabase-js `flowType: ' +
      '"pkce"`) the callback returns `redirect_to?code=<auth_code>` for grant_type=pkce.',
  })
  @ApiQuery({ name: 'provider', enum: ['google'] })
  @ApiQuery({
    name: 'redirect_to',
    type: String,
    description: 'Where to return; must be on ALLOWED_REDIRECT_ORIGINS',
    example: 'http://localhost:5173/welcome',
  })
  @ApiQuery(PKCE_QUERY[0])
  @ApiQuery(PKCE_QUERY[1])
  @ApiRedirect("To Google's consent page", "Google's authorization URL, with this sign-in's state and PKCE challenge")
  @ApiGoTrueError(
    400,
    '`validation_failed`: a provider other than google, `redirect_to` not on an allowed origin, or a bad PKCE ' +
      'challenge; `provider_disabled`: Google sign-in not configured',
    {
      error_code: 'validation_failed',
      msg: 'Unsupported provider: only google is available',
    },
  )
  @ApiGoTrueRateLimited()
  async authorize(
    @Query('provider') provider: string | undefined,
    @Query('redirect_to') redirectTo: string | undefined,
    @Query() query: Record<string, unknown>,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    if (provider !== 'google') throw new GoTrueError(400, 'validation_failed', 'Unsupported provider: only google is available');
    const target = redirectTo ?? this.http.baseUrl;
    if (!this.http.allowsRedirectTo(target)) {
      throw new GoTrueError(400, 'validation_failed', 'redirect_to is not an allowed origin (ALLOWED_REDIRECT_ORIGINS)');
    }
    void reply.redirect(await this.google.authorizationUrl(target, pkceChallenge(query)), 302);
  }

  @Get('callback')
  @Public()
  @ApiSecurity({})
  @ApiOperation({
    summary: 'Google returns here; redirects to redirect_to signed in (the session in the fragment, or an auth code)',
    description:
      "Google's redirect, not called by apps. With a known `state` the browser always goes on to the sign-in's " +
      '`redirect_to`: signed in, or with `error=…&error_description=…` when the user declined or the sign-in failed ' +
      '(in the query when the sign-in was started with a PKCE `code_challenge`, else in the fragment). A missing, ' +
      'expired or used `state` answers 400.',
  })
  @ApiRedirect(
    "To the sign-in's `redirect_to`, signed in or with the failure",
    '`redirect_to?code=…` (PKCE), ' +
      '`redirect_to#access_token=…&refresh_token=…&expires_in=3600&expires_at=…&token_type=bearer`, or ' +
      '`#error=…&error_description=…`',
  )
  @ApiGoTrueError(400, '`bad_oauth_state`: the `state` is missing, expired or already used', {
    error_code: 'bad_oauth_state',
    msg: 'OAuth state is missing, expired or already used',
  })
  @ApiGoTrueRateLimited()
  async callback(@Query() query: Record<string, string>, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
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
