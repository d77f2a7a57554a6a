import { applyDecorators } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiQuery, ApiResponse } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrorResponse, ApiPage } from '@app/core';
import { SocialAccountView } from '../accounts/social-account.js';
import { describePkcePlatforms } from '../platforms/registry.js';

/** A connect link that is unknown, used or malformed. */
const ApiInvalidConnectLink = () =>
  ApiErrorResponse(400, 'An unknown, used or missing `state`', {
    code: 'VALIDATION_FAILED',
    message: 'This connect link is not valid',
    details: [{ field: 'state', message: 'Unknown state' }],
  });
const STATE_EXAMPLE = 'Jx2v7yQy0xgk3lY5bq3m3l7v5dY2bq9k0QyJx2v7yQy';

/** POST /functions/v1/social-connect */
export const ApiStartSocialConnect = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Start connecting a social account',
      description:
        "Answers `auth_url`, this service's start URL for the " +
        "merchant's browser, and the `state` it carries: single use, " +
        '256 bits, bound to the store, the caller, the platform and ' +
        '`redirect_url`, valid 10 minutes. The first browser to open ' +
        '`auth_url` is bound to the connect (an HttpOnly cookie) and ' +
        "sent on to the platform's consent page; a second browser " +
        `is sent to \`redirect_url?platform=&status=error&error=already_started\`. ` +
        `PKCE (S256) where the platform takes it (${describePkcePlatforms()}). ` +
        'After consent the platform sends the browser to the callback, which stores the account (tokens encrypted ' +
        'at rest) only for the browser that opened `auth_url`, and sends it on to ' +
        '`redirect_url?platform=&status=connected&account=<id>` ' +
        'or `…&status=error&error=<code>` (`browser_mismatch` for ' +
        "another browser). With SOCIAL_MODE=sandbox (the default) the consent page is this server's sandbox page. " +
        'Owners, admins and members with the `social` permission. Store keys are refused (403): connecting an ' +
        "account is a person's consent in a browser; a key publishes with the accounts its store has connected.",
    }),
    ApiEnvelope(200, {
      auth_url: {
        type: 'string',
        format: 'uri',
        description: "The service's start URL, for the merchant's browser",
        example: `http://localhost:3000/functions/v1/social-connect/start?state=${STATE_EXAMPLE}`,
      },
      state: { type: 'string', description: 'The single-use state `auth_url` carries', example: STATE_EXAMPLE },
    }),
    ApiErrorResponse(503, 'SOCIAL_MODE=live and the platform has no client id and secret configured', {
      code: 'NOT_CONFIGURED',
      message: 'X is not configured on this server (its client id and secret are unset)',
    }),
  );

/** GET /functions/v1/social-connect/start */
export const ApiOpenSocialConnect = () =>
  applyDecorators(
    ApiOperation({
      summary: "The merchant's browser opens `auth_url` here",
      description:
        'Not called by apps. The first open binds the connect to this browser (an HttpOnly, SameSite=Lax cookie ' +
        'limited to `/functions/v1/social-connect`, for the 10 minutes of the state) and redirects to the ' +
        "platform's consent page. A later open (another browser) is not bound: it goes to " +
        '`redirect_url?platform=&status=error&error=already_started`; an expired state to ' +
        '`…&error=expired_state`. An unknown or used state answers 400.',
    }),
    ApiQuery({ name: 'state', type: String, description: 'The `state` of `auth_url`', example: STATE_EXAMPLE }),
    ApiResponse({
      status: 302,
      description: "The platform's consent page (with a cookie), or `redirect_url?…&status=error&error=<code>`",
    }),
    ApiInvalidConnectLink(),
  );

/** GET /functions/v1/social-connect/callback */
export const ApiSocialConnectCallback = () =>
  applyDecorators(
    ApiOperation({
      summary: 'The platform sends the browser back here',
      description:
        'Not called by apps. Redirects to the `redirect_url` given to `social-connect`; an unknown or used state ' +
        'answers 400. The account is stored only when the browser is the one that opened `auth_url` (its cookie); ' +
        'another browser goes to `redirect_url?platform=&status=error&error=browser_mismatch` and the state is ' +
        'spent.',
    }),
    ApiQuery({
      name: 'error',
      type: String,
      required: false,
      description: "The platform's error, e.g. `access_denied` when the merchant refused",
    }),
    ApiQuery({
      name: 'code',
      type: String,
      required: false,
      description: "The platform's authorization code, on consent",
    }),
    ApiQuery({
      name: 'state',
      type: String,
      description: 'The `state` the platform was given',
      example: STATE_EXAMPLE,
    }),
    ApiResponse({
      status: 302,
      description: '`redirect_url?platform=x&status=connected&account=<account id>` or `…&status=error&error=<code>`',
    }),
    ApiInvalidConnectLink(),
  );

/** GET /functions/v1/social-accounts */
export const ApiListSocialAccounts = () =>
  applyDecorators(
    ApiOperation({
      summary: "A store's connected social accounts",
      description: 'At most one per platform, so always one page (`next_cursor` null). Tokens are never answered.',
    }),
    ApiPage(SocialAccountView, 'Always one page: `next_cursor` is null'),
  );

/** DELETE /functions/v1/social-accounts/{account_id} */
export const ApiDisconnectSocialAccount = () =>
  applyDecorators(
    ApiParam({ name: 'account_id', format: 'uuid' }),
    ApiOperation({
      summary: 'Disconnect a social account',
      description:
        'Forgets the account and its tokens. Posts scheduled for it fail ' +
        'at their time with `not_connected` unless it is connected again.',
    }),
    ApiEnvelope(200, { message: { type: 'string', example: 'Social account disconnected' } }),
  );
