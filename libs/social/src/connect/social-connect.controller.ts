import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { StoreScoped } from '@app/commerce';
import { ApiError, ApiFunctionRoute, ApiSuccess, CurrentUser, DbScopes, OwnTransactions, Public, type UserPrincipal } from '@app/core';
import { ACCOUNT_EXAMPLE } from '../accounts/social-account.js';
import { SocialConnectDto, StoreQueryDto } from '../social.dto.js';
import { SocialConnectService } from './social-connect.service.js';

/** Connecting a store to social platforms, and its connected accounts (API.md §4). */
@ApiTags('social')
@ApiFunctionRoute()
@Controller('functions/v1')
export class SocialConnectController {
  constructor(
    private readonly connect: SocialConnectService,
    private readonly scopes: DbScopes,
  ) {}

  @Post('social-connect')
  @HttpCode(200)
  // The state is written in the request transaction, as the user (who must hold `social` on the store).
  @StoreScoped({ from: 'body', need: 'social' })
  @ApiOperation({
    summary: 'Start connecting a social account',
    description:
      "Answers the platform's consent page (`auth_url`) for the merchant's browser and the `state` it carries: single use, " +
      '256 bits, bound to the store, the caller, the platform and `redirect_url`, valid 10 minutes. PKCE (S256) where the platform ' +
      'takes it (X requires it). After consent the platform sends the browser to the callback, which stores the account ' +
      '(tokens encrypted at rest) and sends it on to `redirect_url?platform=&status=connected&account=<id>` or ' +
      "`…&status=error&error=<code>`. With SOCIAL_MODE=sandbox (the default) `auth_url` is this server's sandbox consent page. " +
      'Owners, admins and members with the `social` permission.',
  })
  @ApiSuccess(200, {
    auth_url: 'http://localhost:3000/functions/v1/social-sandbox/authorize?platform=x&state=…',
    state: 'Jx2v7yQy0xgk3lY5bq3m3l7v5dY2bq9k0QyJx2v7yQy',
  })
  @ApiResponse({ status: 503, description: 'SOCIAL_MODE=live and the platform has no client id and secret configured' })
  async start(@CurrentUser() user: UserPrincipal, @Body() body: SocialConnectDto) {
    return { success: true, ...(await this.connect.start(body.store_id, user.userId, body.platform, body.redirect_url)) };
  }

  @Get('social-connect/callback')
  @Public()
  @OwnTransactions()
  @ApiOperation({
    summary: 'The platform sends the browser back here',
    description: 'Not called by apps. Redirects to the `redirect_url` given to `social-connect`; an unknown or used state answers 400.',
  })
  @ApiResponse({
    status: 302,
    description: '`redirect_url?platform=x&status=connected&account=<account id>` or `…&status=error&error=<code>`',
  })
  async callback(@Query() query: Record<string, string>, @Res() reply: FastifyReply): Promise<void> {
    // The browser coming back carries no user: the state alone says whose store this is.
    const outcome = await this.scopes.asSystem(() => this.connect.complete(query));
    if (!outcome.redirectTo) {
      throw ApiError.validation([{ field: 'state', message: outcome.error?.message ?? 'Unknown state' }], 'This connect link is not valid');
    }
    void reply.redirect(outcome.redirectTo, 302);
  }

  @Get('social-accounts')
  @StoreScoped({ from: 'query', need: 'social' })
  @ApiOperation({
    summary: "A store's connected social accounts",
    description: 'At most one per platform, so always one page (`next_cursor` null). Tokens are never answered.',
  })
  @ApiSuccess(200, { data: [ACCOUNT_EXAMPLE], next_cursor: null })
  async accounts(@Query() query: StoreQueryDto) {
    return { success: true, data: await this.connect.accounts(query.store_id), next_cursor: null };
  }

  @Delete('social-accounts/:account_id')
  @ApiParam({ name: 'account_id', format: 'uuid' })
  @StoreScoped({ from: 'social_account', need: 'social' })
  @ApiOperation({
    summary: 'Disconnect a social account',
    description:
      'Forgets the account and its tokens. Posts scheduled for it fail at their time with `not_connected` unless it is connected again.',
  })
  @ApiSuccess(200, { message: 'Social account disconnected' })
  async disconnect(@Param('account_id') accountId: string) {
    await this.connect.disconnect(accountId);
    return { success: true, message: 'Social account disconnected' };
  }
}
