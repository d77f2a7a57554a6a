import { Body, Controller, Get, HttpCode, Post, Query, Req, Res, UseInterceptors } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig, CurrentUser, GoTrueError, Public, PublicKeyAllowed, type UserPrincipal } from '@app/core';
import { AuthService, type LogoutScope } from './auth.service.js';
import { parseGoTrueBody, PasswordGrantBody, RefreshGrantBody, SignUpBody } from './dto/auth.dto.js';
import { GoogleSignInService } from './google/google-sign-in.service.js';
import type { SessionView } from './sessions/session.js';
import type { SessionMeta } from './sessions/session.repository.js';
import { SignInLimitInterceptor } from './sign-in-limits/sign-in-limit.interceptor.js';
import type { UserView } from './users/user.js';

const SESSION_EXAMPLE = {
  access_token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9...',
  token_type: 'bearer',
  expires_in: 3600,
  expires_at: 1795000000,
  refresh_token: 'n3Vq2xk8...',
  user: {
    id: '0b6f3c1e-8d2a-4e57-9a36-2c1f0e7d9b44',
    aud: 'authenticated',
    email: 'ada@example.com',
    role: 'merchant',
    app_metadata: { role: 'merchant', provider: 'email', providers: ['email'] },
    user_metadata: { full_name: 'Ada Merchant' },
    created_at: '2026-11-22T10:00:00.000Z',
    updated_at: '2026-11-22T10:00:00.000Z',
    last_sign_in_at: '2026-11-22T10:00:00.000Z',
  },
};
const GOTRUE_ERROR = { schema: { example: { code: 400, error_code: 'invalid_credentials', msg: 'Invalid login credentials' } } };

function sessionMeta(request: FastifyRequest): SessionMeta {
  return { userAgent: request.headers['user-agent'], ip: request.ip };
}

/** GoTrue-compatible authentication, so @supabase/supabase-js works unmodified. */
@ApiTags('auth')
@ApiExtraModels(SignUpBody, PasswordGrantBody, RefreshGrantBody)
@Controller('auth/v1')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly google: GoogleSignInService,
    private readonly config: AppConfig,
  ) {}

  @Post('signup')
  @HttpCode(200)
  @PublicKeyAllowed()
  @ApiOperation({
    summary: 'Create an account and sign in',
    description:
      'Plain sign-up makes a merchant; `data.role: "customer"` with `data.store_id` a customer of that store; `data.invite_token` a team member of the inviting store. Needs the public API key (`apikey` header).',
  })
  @ApiBody({ type: SignUpBody })
  @ApiOkResponse({ description: 'The new session', schema: { example: SESSION_EXAMPLE } })
  @ApiResponse({ status: 422, description: '`weak_password` or `user_already_exists`', ...GOTRUE_ERROR })
  signUp(@Body() body: unknown, @Req() request: FastifyRequest): Promise<SessionView> {
    return this.auth.signUp(parseGoTrueBody(SignUpBody, body), sessionMeta(request));
  }

  @Post('token')
  @HttpCode(200)
  @PublicKeyAllowed()
  @UseInterceptors(SignInLimitInterceptor)
  @ApiOperation({
    summary: 'Sign in (grant_type=password) or rotate a refresh token (grant_type=refresh_token)',
    description:
      'Refresh tokens are single use: presenting one again revokes its whole session and answers 400 `refresh_token_already_used`. Password attempts are limited per client address, and failures per account (429; see the README).',
  })
  @ApiQuery({ name: 'grant_type', enum: ['password', 'refresh_token'] })
  @ApiBody({ schema: { oneOf: [{ $ref: getSchemaPath(PasswordGrantBody) }, { $ref: getSchemaPath(RefreshGrantBody) }] } })
  @ApiOkResponse({ description: 'A session', schema: { example: SESSION_EXAMPLE } })
  @ApiResponse({
    status: 400,
    description: '`invalid_credentials`, `refresh_token_not_found`, `refresh_token_already_used`',
    ...GOTRUE_ERROR,
  })
  @ApiResponse({ status: 429, description: '`over_request_rate_limit`, with Retry-After' })
  @ApiResponse({
    status: 503,
    description: '`service_unavailable`, with Retry-After: password attempts cannot be counted while Redis is unreachable',
    ...GOTRUE_ERROR,
  })
  token(@Query('grant_type') grantType: string | undefined, @Body() body: unknown, @Req() request: FastifyRequest): Promise<SessionView> {
    if (grantType === 'password') return this.auth.signInWithPassword(parseGoTrueBody(PasswordGrantBody, body), sessionMeta(request));
    if (grantType === 'refresh_token') return this.auth.refresh(parseGoTrueBody(RefreshGrantBody, body).refresh_token);
    throw new GoTrueError(400, 'validation_failed', 'grant_type must be password or refresh_token');
  }

  @Get('user')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'The signed-in user' })
  @ApiOkResponse({ schema: { example: SESSION_EXAMPLE.user } })
  user(@CurrentUser() principal: UserPrincipal): Promise<UserView> {
    return this.auth.getUser(principal);
  }

  @Post('logout')
  @HttpCode(204)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'End sessions: this one (local), all (global, the default) or all but this one (others)' })
  @ApiQuery({ name: 'scope', enum: ['global', 'local', 'others'], required: false })
  @ApiResponse({ status: 204, description: 'Signed out' })
  async logout(@CurrentUser() principal: UserPrincipal, @Query('scope') scope: string | undefined): Promise<void> {
    const chosen = scope ?? 'global';
    if (!['global', 'local', 'others'].includes(chosen)) {
      throw new GoTrueError(400, 'validation_failed', 'scope must be global, local or others');
    }
    await this.auth.logout(principal, chosen as LogoutScope);
  }

  @Get('authorize')
  @Public()
  @ApiOperation({ summary: "Start Google sign-in: redirects to Google's consent page (state + PKCE)" })
  @ApiQuery({ name: 'provider', enum: ['google'] })
  @ApiQuery({
    name: 'redirect_to',
    description: 'Where to return; must be on ALLOWED_REDIRECT_ORIGINS',
    example: 'http://localhost:5173/welcome',
  })
  @ApiResponse({ status: 302, description: "To Google's consent page" })
  async authorize(
    @Query('provider') provider: string | undefined,
    @Query('redirect_to') redirectTo: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    if (provider !== 'google') throw new GoTrueError(400, 'validation_failed', 'Unsupported provider: only google is available');
    const target = redirectTo ?? this.config.baseUrl;
    if (!this.config.allowsRedirectTo(target)) {
      throw new GoTrueError(400, 'validation_failed', 'redirect_to is not an allowed origin (ALLOWED_REDIRECT_ORIGINS)');
    }
    void reply.redirect(await this.google.authorizationUrl(target), 302);
  }

  @Get('callback')
  @Public()
  @ApiOperation({ summary: 'Google returns here; redirects to redirect_to with the session in the URL fragment' })
  @ApiResponse({ status: 302, description: '`redirect_to#access_token=…&refresh_token=…&expires_in=3600&token_type=bearer`' })
  async callback(@Query() query: Record<string, string>, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const pending = typeof query.state === 'string' ? await this.google.takePending(query.state) : null;
    if (!pending) throw new GoTrueError(400, 'bad_oauth_state', 'OAuth state is missing, expired or already used');
    const target = new URL(pending.redirectTo);
    let fragment: URLSearchParams;
    if (query.error) {
      fragment = new URLSearchParams({ error: query.error, error_description: query.error_description ?? 'Sign-in was not completed' });
    } else {
      try {
        const session = await this.google.complete(query, pending, sessionMeta(request));
        fragment = new URLSearchParams({
          access_token: session.access_token,
          refresh_token: session.refresh_token,
          expires_in: String(session.expires_in),
          expires_at: String(session.expires_at),
          token_type: session.token_type,
        });
      } catch (error) {
        const failure = error instanceof GoTrueError ? error : new GoTrueError(500, 'unexpected_failure', 'Sign-in failed');
        fragment = new URLSearchParams({ error: failure.errorCode, error_description: failure.message });
      }
    }
    target.hash = fragment.toString();
    void reply.redirect(target.toString(), 302);
  }
}
