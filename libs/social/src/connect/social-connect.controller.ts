import { Controller, Delete, Get, Header, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  ApiError,
  ApiFunctionRoute,
  CurrentUser,
  hashToken,
  httpConfig,
  type HttpConfig,
  OwnTransactions,
  Public,
  StoreScoped,
  type UserPrincipal,
  Body,
  Query,
} from '@app/core';
import { SocialConnectDto, StoreQueryDto } from '../social.dto.js';
import { browserCookieName, CONNECT_PATH, SocialConnectService } from './social-connect.service.js';
import {
  ApiStartSocialConnect,
  ApiOpenSocialConnect,
  ApiSocialConnectCallback,
  ApiListSocialAccounts,
  ApiDisconnectSocialAccount,
} from './social-connect.openapi.js';
// Registers the store resource its routes name (social_account) before they are declared.
import '../store-resources.js';

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
  @ApiStartSocialConnect()
  async start(@CurrentUser() user: UserPrincipal, @Body() body: SocialConnectDto) {
    return {
      success: true,
      ...(await this.connect.start(body.store_id, user.userId, body.platform, body.redirect_url)),
    };
  }

  @Get('social-connect/start')
  @Public()
  @OwnTransactions()
  @Header('cache-control', 'no-store')
  @ApiOpenSocialConnect()
  async open(@Query() query: Record<string, string>, @Res() reply: FastifyReply): Promise<void> {
    // The browser opening the link carries no user: the state alone says whose store this is.
    const outcome = await this.connect.open(query);
    if (!outcome.redirectTo) {
      throw ApiError.validation(
        [{ field: 'state', message: outcome.error?.message ?? 'Unknown state' }],
        'This connect link is not valid',
      );
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
  @ApiSocialConnectCallback()
  async callback(
    @Query() query: Record<string, string>,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    // The browser coming back carries no user: the state and this browser's cookie say whose store this is.
    const outcome = await this.connect.complete(query, cookiesOf(request.headers.cookie));
    if (!outcome.redirectTo) {
      throw ApiError.validation(
        [{ field: 'state', message: outcome.error?.message ?? 'Unknown state' }],
        'This connect link is not valid',
      );
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
  @ApiListSocialAccounts()
  async accounts(@Query() query: StoreQueryDto) {
    return { success: true, data: await this.connect.accounts(query.store_id), next_cursor: null };
  }

  @Delete('social-accounts/:account_id')
  @ApiFunctionRoute()
  @StoreScoped({ from: 'social_account', need: 'social' })
  @ApiDisconnectSocialAccount()
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
