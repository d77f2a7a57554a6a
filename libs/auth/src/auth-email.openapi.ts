import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiQuery, ApiSecurity } from '@nestjs/swagger';
import { RecoverBody, ResendBody, VerifyBody } from './dto/account.dto.js';
import { OtpBody } from './dto/otp.dto.js';
import {
  ApiGoTrueError,
  ApiGoTrueKeyRequired,
  ApiGoTrueRateLimited,
  ApiRedirect,
  EMPTY_OBJECT,
} from './dto/gotrue-responses.js';
import { SessionView } from './sessions/session.js';
import { ApiMailLimits, REDIRECT_TO, VALIDATION_FAILED } from './auth.openapi.js';

// The OpenAPI documentation of AuthController's routes that mail a link and a code, and use them.

/** POST /auth/v1/recover */
export const ApiRecover = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Mail a password recovery link and code',
      description:
        'Always `{}`: the answer never says whether an account has the address. When ' +
        'one does, it gets a link (GET /auth/v1/verify, type recovery, signing the ' +
        'browser in at `redirect_to`) and a 6-digit code (POST /auth/v1/verify), valid ' +
        'AUTH_OTP_TTL (1 h) and once; then set the new password with PUT /auth/v1/user.',
    }),
    ApiBody({ type: RecoverBody }),
    ApiQuery(REDIRECT_TO),
    ApiOkResponse({ description: 'Always `{}`', schema: EMPTY_OBJECT }),
    ApiGoTrueError(400, '`validation_failed`: the e-mail address is missing or malformed', VALIDATION_FAILED),
    ApiGoTrueKeyRequired(),
    ApiMailLimits(),
  );

/** POST /auth/v1/resend */
export const ApiResend = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Mail a sign-up or e-mail change confirmation again',
      description:
        'Always `{}`; a new link and code (the earlier ones stop working) when ' +
        'the address has an unconfirmed sign-up or a pending e-mail change.',
    }),
    ApiBody({ type: ResendBody }),
    ApiQuery(REDIRECT_TO),
    ApiOkResponse({ description: 'Always `{}`', schema: EMPTY_OBJECT }),
    ApiGoTrueError(400, '`validation_failed`: a missing or bad `type` or e-mail address', VALIDATION_FAILED),
    ApiGoTrueKeyRequired(),
    ApiMailLimits(),
  );

/** POST /auth/v1/otp */
export const ApiOtp = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Passwordless sign-in: mail a magic link and a 6-digit code',
      description:
        'supabase-js `signInWithOtp`. Always `{}`: the answer never says whether an account has the address. The ' +
        'link (GET /auth/v1/verify, type magiclink) signs the browser in at `redirect_to`; the code is used with ' +
        'POST /auth/v1/verify `{type: "email", email, token}`; both valid AUTH_OTP_TTL (1 h) and once. With ' +
        '`create_user` (default true) a new address gets an account as sign-up makes it from `data` (a merchant, ' +
        'or with `data.role: "customer"` and `data.store_id` a customer of that store), without a password and ' +
        'confirmed once the link or code is used. `create_user: false` mails nothing to an address without a ' +
        'confirmed account. With `code_challenge` the link returns `redirect_to?code=` for grant_type=pkce.',
    }),
    ApiBody({ type: OtpBody }),
    ApiQuery(REDIRECT_TO),
    ApiOkResponse({ description: 'Always `{}`', schema: EMPTY_OBJECT }),
    ApiGoTrueError(
      400,
      '`validation_failed`: a missing or bad e-mail address, a bad PKCE challenge, or (create_user) `data.store_id` ' +
        'missing or unknown for a customer',
      VALIDATION_FAILED,
    ),
    ApiGoTrueKeyRequired(),
    ApiMailLimits(),
  );

/** POST /auth/v1/verify */
export const ApiVerify = () =>
  applyDecorators(
    ApiOperation({
      summary: "Use an e-mail's link token or code, and sign in",
      description:
        '`{type, token_hash}` (the `token` of the link) or `{type, email, token}` (the 6-digit code; wrong codes are ' +
        'limited per address). Types: `signup` (confirms the address), `recovery` (then set a password with PUT ' +
        "/auth/v1/user), `email_change` (the new address becomes the account's; the old one is told), `invite` (an " +
        "invitation e-mail's link: joins the store, making a team member account when needed), `magiclink` (the link " +
        'of POST /auth/v1/otp), `email` (a 6-digit code of POST /auth/v1/otp, or of a sign-up confirmation). Each ' +
        'works once, within AUTH_OTP_TTL. This answers the session even when the e-mail was asked for with a PKCE ' +
        'challenge.',
    }),
    ApiBody({ type: VerifyBody }),
    ApiOkResponse({ description: 'A session', type: SessionView }),
    ApiGoTrueError(400, '`validation_failed`: neither `token_hash` nor `email` and `token`, or a bad field', {
      error_code: 'validation_failed',
      msg: 'Verify requires either a token_hash, or an email and its token',
    }),
    ApiGoTrueKeyRequired(),
    ApiGoTrueError(403, '`otp_expired`: unknown, used or expired', {
      error_code: 'otp_expired',
      msg: 'Token has expired or is invalid',
    }),
    ApiGoTrueError(422, '`validation_failed`: an invitation to an address whose account cannot be a team member', {
      error_code: 'validation_failed',
      msg: 'The invited address belongs to an account that cannot be a team member',
    }),
    ApiGoTrueRateLimited('`over_request_rate_limit`: too many wrong codes for this address, or too many requests'),
  );

/** GET /auth/v1/verify */
export const ApiVerifyLink = () =>
  applyDecorators(
    ApiSecurity({}),
    ApiOperation({
      summary: "An e-mail's link: uses its token and sends the browser to redirect_to, signed in",
      description:
        '`redirect_to` must be on ALLOWED_REDIRECT_ORIGINS, else the browser goes to AUTH_SITE_URL. When the e-mail ' +
        'was asked for with a PKCE `code_challenge`, the browser goes to `redirect_to?code=<auth_code>` (exchange it ' +
        'with POST /auth/v1/token?grant_type=pkce); otherwise the session is in the URL fragment. Failures go there ' +
        'too: `#error=access_denied&error_code=otp_expired&error_description=…`.',
    }),
    ApiQuery(REDIRECT_TO),
    ApiQuery({ name: 'token', type: String, description: "The link's token" }),
    ApiQuery({ name: 'type', enum: ['signup', 'recovery', 'email_change', 'invite', 'magiclink'] }),
    ApiRedirect(
      'Always, the link used or not: to `redirect_to` with an auth code (PKCE), the session, or the failure',
      '`redirect_to?code=…` (PKCE), ' +
        '`redirect_to#access_token=…&expires_at=…&expires_in=3600&refresh_token=…&token_type=bearer&type=recovery`, ' +
        'or `#error=access_denied&error_code=otp_expired&error_description=…`',
    ),
    ApiGoTrueRateLimited(),
  );
