import { Body, Controller, Delete, Get, Header, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  ApiEnvelope,
  ApiError,
  ApiErrorResponse,
  ApiFunctionRoute,
  ApiPage,
  CurrentUser,
  hashToken,
  httpConfig,
  type HttpConfig,
  OwnTransactions,
  Public,
  StoreScoped,
  type UserPrincipal,
} from '@app/core';
import { SocialAccountView } from '../accounts/social-account.js';
import { describePkcePlatforms } from '../platforms/registry.js';
import { SocialConnectDto, StoreQueryDto } from '../social.dto.js';
import { browserCookieName, CONNECT_PATH, SocialConnectService } from './social-connect.service.js';
import '../store-resources.js'; // registers the store resource its routes name (social_account) before they are declared

/** A connect link that is unknown, used or malformed. */
const ApiInvalidConnectLink = () =>
  ApiErrorResponse(400, 'An unknown, used or missing `state`', {
    code: 'VALIDATION_FAILED',
    message: 'This connect link is not valid',
    details: [{ field: 'state', message: 'Unknown state' }],
  });

const STATE_EXAMPLE = 'Jx2v7yQy0xgk3lY5bq3m3l7v5dY2bq9k0QyJx2v7yQy';

/**
 * Connecting a store to social platforms, and its connected accounts. The two routes the browser
 * opens (`start`, `callback`) take no credentials; the others a user's token.
 */
@ApiTags('social')
@Controller('functions/v1')
export class SocialConnectController {
  constructor(
    private readonly connect: SocialConnectService,
    @Inject(httpConfig.KEY) private readonly config: HttpConfig,
  ) {}

  @Post('social-connect')
  @HttpCode(200)
  @ApiFunctionRoute()
  // The state is written in the request transaction, as the user (who must hold `social` on the store).
  @StoreScoped({ from: 'body', need: 'social', storeKeys: false })
  @ApiOperation({
    summary: 'Start connecting a social account',
    description:
      "Answers `auth_url`, this service's start URL for the merchant's browser, and the `state` it carries: single use, " +
      '256 bits, bound to the store, the caller, the platform and `redirect_url`, valid 10 minutes. The first browser to open ' +
      "`auth_url` is bound to the connect (an HttpOnly cookie) and sent on to the platform's consent page; a second browser " +
      `is sent to \`redirect_url?platform=&status=error&error=already_started\`. PKCE (S256) where the platform takes it (${describePkcePlatforms()}). ` +
      'After consent the platform sends the browser to the callback, which stores the account (tokens encrypted ' +
      'at rest) only for the browser that opened `auth_url`, and sends it on to ' +
      '`redirect_url?platform=&status=connected&account=<id>` or `…&status=error&error=<code>` (`browser_mismatch` for ' +
      "another browser). With SOCIAL_MODE=sandbox (the default) the consent page is this server's sandbox page. " +
      'Owners, admins and members with the `social` permission. Store keys are refused (403): connecting an ' +
      "account is a person's consent in a browser; a key publishes with the accounts its store has connected.",
  })
  @ApiEnvelope(200, {
    auth_url: {
      type: 'string',
      format: 'uri',
      description: "The service's start URL, for the merchant's browser",
      example: `http://localhost:3000/functions/v1/social-connect/start?state=${STATE_EXAMPLE}`,
    },
    state: { type: 'string', description: 'The single-use state `auth_url` carries', example: STATE_EXAMPLE },
  })
  @ApiErrorResponse(503, 'SOCIAL_MODE=live and the platform has no client id and secret configured', {
    code: 'NOT_CONFIGURED',
    message: 'X is not configured on this server (its client id and secret are unset)',
  })
  async start(@CurrentUser() user: UserPrincipal, @Body() body: SocialConnectDto) {
    return { success: true, ...(await this.connect.start(body.store_id, user.userId, body.platform, body.redirect_url)) };
  }

  @Get('social-connect/start')
  @Public()
  @OwnTransactions()
  @Header('cache-control', 'no-store')
  @ApiOperation({
    summary: "The merchant's browser opens `auth_url` here",
    description:
      'Not called by apps. The first open binds the connect to this browser (an HttpOnly, SameSite=Lax cookie limited to ' +
      "`/functions/v1/social-connect`, for the 10 minutes of the state) and redirects to the platform's consent page. " +
      'A later open (another browser) is not bound: it goes to `redirect_url?platform=&status=error&error=already_started`; ' +
      'an expired state to `…&error=expired_state`. An unknown or used state answers 400.',
  })
  @ApiQuery({ name: 'state', type: String, description: 'The `state` of `auth_url`', example: STATE_EXAMPLE })
  @ApiResponse({ status: 302, description: "The platform's consent page (with a cookie), or `redirect_url?…&status=error&error=<code>`" })
  @ApiInvalidConnectLink()
  async open(@Query() query: Record<string, string>, @Res() reply: FastifyReply): Promise<void> {
    // The browser opening the link carries no user: the state alone says whose store this is.
    const outcome = await this.connect.open(query);
    if (!outcome.redirectTo) {
      throw ApiError.validation([{ field: 'state', message: outcome.error?.message ?? 'Unknown state' }], 'This connect link is not valid');
    }
    if (outcome.cookie) {
      const { name, value, maxAgeSeconds } = outcome.cookie;
      void reply.header('set-cookie', this.cookie(name, value, maxAgeSeconds));
    }
    void reply.redirect(outcome.redirectTo, 302);
  }

  @Get('social-connect/callback')
  @Public()
  @OwnTransactions()
  @Header('cache-control', 'no-store')
  @ApiOperation({
    summary: 'The platform sends the browser back here',
    description:
      'Not called by apps. Redirects to the `redirect_url` given to `social-connect`; an unknown or used state answers 400. ' +
      'The account is stored only when the browser is the one that opened `auth_url` (its cookie); another browser goes to ' +
      '`redirect_url?platform=&status=error&error=browser_mismatch` and the state is spent.',
  })
  @ApiQuery({ name: 'state', type: String, description: 'The `state` the platform was given', example: STATE_EXAMPLE })
  @ApiQuery({ name: 'code', type: String, required: false, description: "The platform's authorization code, on consent" })
  @ApiQuery({
    name: 'error',
    type: String,
    required: false,
    description: "The platform's error, e.g. `access_denied` when the merchant refused",
  })
  @ApiResponse({
    status: 302,
    description: '`redirect_url?platform=x&status=connected&account=<account id>` or `…&status=error&error=<code>`',
  })
  @ApiInvalidConnectLink()
  async callback(@Query() query: Record<string, string>, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    // The browser coming back carries no user: the state and this browser's cookie say whose store this is.
    const outcome = await this.connect.complete(query, cookiesOf(request.headers.cookie));
    if (!outcome.redirectTo) {
      throw ApiError.validation([{ field: 'state', message: outcome.error?.message ?? 'Unknown state' }], 'This connect link is not valid');
    }
    const state = typeof query.state === 'string' ? query.state : '';
    // The state is spent: its cookie is of no further use.
    if (state) void reply.header('set-cookie', this.cookie(browserCookieName(hashToken(state).toString('hex')), '', 0));
    void reply.redirect(outcome.redirectTo, 302);
  }

  private cookie(name: string, value: string, maxAgeSeconds: number): string {
    const secure = this.config.baseUrl.startsWith('https:') ? '; Secure' : '';
    return `${name}=${value}; Max-Age=${maxAgeSeconds}; Path=${CONNECT_PATH}; HttpOnly; SameSite=Lax${secure}`;
  }

  @Get('social-accounts')
  @ApiFunctionRoute()
  @StoreScoped({ from: 'query', need: 'social' })
  @ApiOperation({
    summary: "A store's connected social accounts",
    description: 'At most one per platform, so always one page (`next_cursor` null). Tokens are never answered.',
  })
  @ApiPage(SocialAccountView, 'Always one page: `next_cursor` is null')
  async accounts(@Query() query: StoreQueryDto) {
    return { success: true, data: await this.connect.accounts(query.store_id), next_cursor: null };
  }

  @Delete('social-accounts/:account_id')
  @ApiFunctionRoute()
  @ApiParam({ name: 'account_id', format: 'uuid' })
  @StoreScoped({ from: 'social_account', need: 'social' })
  @ApiOperation({
    summary: 'Disconnect a social account',
    description:
      'Forgets the account and its tokens. Posts scheduled for it fail at their time with `not_connected` unless it is connected again.',
  })
  @ApiEnvelope(200, { message: { type: 'string', example: 'Social account disconnected' } })
  async disconnect(@Param('account_id') accountId: string) {
    await this.connect.disconnect(accountId);
    return { success: true, message: 'Social account disconnected' };
  }
}

/** The cookies of a `Cookie` header (the first of each name). */
function cookiesOf(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at <= 0) continue;
    const name = part.slice(0, at).trim();
    if (name && !Object.hasOwn(cookies, name)) cookies[name] = part.slice(at + 1).trim();
  }
  return cookies;
}
