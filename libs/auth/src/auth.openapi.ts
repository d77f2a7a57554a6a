import { applyDecorators } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiExtraModels,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  getSchemaPath,
} from '@nestjs/swagger';
import { UpdateUserBody } from './dto/account.dto.js';
import { PasswordGrantBody, RefreshGrantBody, SignUpBody } from './dto/auth.dto.js';
import {
  ApiGoTrueError,
  ApiGoTrueKeyRequired,
  ApiGoTrueRateLimited,
  ApiGoTrueTokenRequired,
  RETRY_AFTER,
} from './dto/gotrue-responses.js';
import { PkceGrantBody } from './pkce/pkce.dto.js';
import { SessionView } from './sessions/session.js';
import { UserView } from './users/user.js';

// The OpenAPI documentation of AuthController's account and session routes; the e-mailed links and codes
// are in auth-email.openapi.ts, Google sign-in in auth-google.openapi.ts.

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
export const VALIDATION_FAILED = {
  error_code: 'validation_failed',
  msg: 'Unable to validate email address: invalid format',
};
export const REDIRECT_TO = {
  name: 'redirect_to',
  type: String,
  required: false,
  description: "Where the e-mail's link sends the browser; must be on ALLOWED_REDIRECT_ORIGINS (else AUTH_SITE_URL)",
  example: 'http://localhost:5173/welcome',
};
/** The 429 of the routes that send e-mail: the general rate limit, or the e-mail limits. */
export const ApiMailLimits = () =>
  ApiGoTrueRateLimited(
    '`over_email_send_rate_limit`: too many e-mails to this address or from this client ' +
      'address; `over_request_rate_limit`: too many requests (RATE_LIMIT_PER_MINUTE)',
  );
/** POST /auth/v1/signup */
export const ApiSignUp = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Create an account and sign in',
      description:
        'Plain sign-up makes a merchant; `data.role: "customer"` with `data.store_id` a customer of that store; ' +
        '`data.invite_token` a team member of the inviting store. Needs the public API key (`apikey` header). ' +
        'With e-mail confirmation on (AUTH_CONFIRM_EMAIL: production by default) the answer is the user without a ' +
        'session and a confirmation link and code are mailed; an address already confirmed gets the same answer ' +
        "(nothing is mailed), one still unconfirmed takes this sign-up's password and a new confirmation.",
    }),
    ApiBody({ type: SignUpBody }),
    ApiQuery(REDIRECT_TO),
    ApiExtraModels(SessionView, UserView),
    ApiOkResponse({
      description: 'The new session; with e-mail confirmation on, the user alone (GoTrue shape)',
      content: {
        'application/json': {
          schema: { oneOf: [{ $ref: getSchemaPath(SessionView) }, { $ref: getSchemaPath(UserView) }] },
          examples: {
            session: { summary: 'Signed in (e-mail confirmation off)', value: SESSION_EXAMPLE },
            unconfirmed: {
              summary: 'Waiting for the confirmation (AUTH_CONFIRM_EMAIL)',
              value: UNCONFIRMED_USER_EXAMPLE,
            },
          },
        },
      },
    }),
    ApiGoTrueError(
      400,
      '`validation_failed`: a bad field, or `data.store_id` missing or unknown for a customer',
      VALIDATION_FAILED,
    ),
    ApiGoTrueKeyRequired(),
    ApiGoTrueError(422, '`weak_password`, or `user_already_exists` (with e-mail confirmation off)', {
      error_code: 'weak_password',
      msg: 'Password should be at least 8 characters.',
    }),
    ApiMailLimits(),
  );

/** POST /auth/v1/token */
export const ApiToken = () =>
  applyDecorators(
    ApiOperation({
      summary:
        'Sign in (grant_type=password), rotate a refresh token (grant_type=refresh_token) or exchange a PKCE auth ' +
        'code (grant_type=pkce)',
      description:
        'Refresh tokens are single use. A token presented again within AUTH_REFRESH_REUSE_INTERVAL (10 s) of its ' +
        "own rotation returns the session's current tokens: its latest refresh token (the same for every caller) " +
        'and a new access token, revoking nothing, so concurrent refreshes of one token all succeed with one ' +
        'rotation. Presented later, it revokes its whole session and answers 400 `refresh_token_already_used`. ' +
        'Password attempts are limited per client address, and failures per account (429; see docs/api.md § Rate ' +
        'limits).',
    }),
    ApiQuery({ name: 'grant_type', enum: ['password', 'refresh_token', 'pkce'] }),
    ApiBody({
      schema: {
        oneOf: [
          { $ref: getSchemaPath(PasswordGrantBody) },
          { $ref: getSchemaPath(RefreshGrantBody) },
          { $ref: getSchemaPath(PkceGrantBody) },
        ],
      },
    }),
    ApiOkResponse({
      description:
        'A session. grant_type=pkce exchanges the `code` an e-mailed link or the Google callback added to ' +
        '`redirect_to` (the flow started with a `code_challenge`) with the verifier of that challenge, once and ' +
        'within 5 minutes, for a new session; `redirect_type` names the kind of link used (e.g. `recovery`).',
      type: SessionView,
    }),
    ApiGoTrueError(
      400,
      '`invalid_credentials`, `email_not_confirmed` (the right password, an address not confirmed yet), ' +
        '`refresh_token_not_found`, `refresh_token_already_used`, `flow_state_expired` (an auth code older than 5 ' +
        'minutes), `validation_failed`',
      INVALID_CREDENTIALS,
    ),
    ApiGoTrueKeyRequired(),
    ApiGoTrueError(403, "`bad_code_verifier`: the verifier does not fit the code's challenge (the code stays usable)", {
      error_code: 'bad_code_verifier',
      msg: 'code challenge does not match previously saved code verifier',
    }),
    ApiGoTrueError(404, '`flow_state_not_found`: an unknown or already used auth code', {
      error_code: 'flow_state_not_found',
      msg: 'invalid flow state, no valid flow state found',
    }),
    ApiGoTrueRateLimited(
      '`over_request_rate_limit`: too many password attempts from this ' +
        'client address or failures for this account, or too many requests',
    ),
    ApiGoTrueError(
      503,
      '`service_unavailable`: password attempts cannot be counted while Redis is unreachable',
      { error_code: 'service_unavailable', msg: 'This is briefly unavailable, retry in a few seconds' },
      RETRY_AFTER,
    ),
  );

/** GET /auth/v1/user */
export const ApiGetUser = () =>
  applyDecorators(
    ApiBearerAuth(),
    ApiOperation({
      summary: 'The signed-in user',
      description:
        'The user of the access token, as stored now (supabase-js `auth.getUser()`): a ' +
        "change made since the token was issued shows here, not in the token's claims.",
    }),
    ApiOkResponse({ description: 'The user', type: UserView }),
    ApiGoTrueTokenRequired(),
    ApiGoTrueRateLimited(),
  );

/** PUT /auth/v1/user */
export const ApiUpdateUser = () =>
  applyDecorators(
    ApiBearerAuth(),
    ApiOperation({
      summary: "Change the signed-in user's password, e-mail address or metadata",
      description:
        'A new `password` needs `current_password` (a wrong one counts as a failed sign-in) or a session signed ' +
        "in within AUTH_RECENT_SIGN_IN, as after a recovery link; it ends the user's other sessions. A new " +
        '`email` is mailed a confirmation link and code and shows as `new_email` until used (AUTH_CONFIRM_EMAIL), ' +
        'or applies at once; the old address is told when it changes. `data` is merged into `user_metadata`.',
    }),
    ApiBody({ type: UpdateUserBody }),
    ApiQuery(REDIRECT_TO),
    ApiOkResponse({
      description: 'The user; a new address waiting for its confirmation shows as `new_email`',
      content: {
        'application/json': {
          schema: { $ref: getSchemaPath(UserView) },
          example: {
            ...USER_EXAMPLE,
            new_email: 'ada.new@example.com',
            email_change_sent_at: '2026-11-22T10:05:00.000Z',
          },
        },
      },
    }),
    ApiGoTrueError(400, '`reauthentication_needed`, `invalid_credentials` (current_password), `validation_failed`', {
      error_code: 'reauthentication_needed',
      msg: 'Password update requires reauthentication: send current_password',
    }),
    ApiGoTrueTokenRequired(),
    ApiGoTrueError(
      422,
      "`weak_password`, `same_password`, `email_exists`; `validation_failed` for the admin's e-mail or password",
      {
        error_code: 'email_exists',
        msg: 'A user with this email address has already been registered',
      },
    ),
    ApiMailLimits(),
  );

/** POST /auth/v1/logout */
export const ApiLogout = () =>
  applyDecorators(
    ApiBearerAuth(),
    ApiOperation({
      summary: 'End sessions: this one (local), all (global, the default) or all but this one (others)',
      description:
        "An ended session's refresh token stops working at once, and its access " +
        'tokens are refused (401 `session_not_found`) from the next request on.',
    }),
    ApiQuery({ name: 'scope', enum: ['global', 'local', 'others'], required: false }),
    ApiNoContentResponse({ description: 'Signed out; no body' }),
    ApiGoTrueError(400, '`validation_failed`: an unknown `scope`', {
      error_code: 'validation_failed',
      msg: 'scope must be global, local or others',
    }),
    ApiGoTrueTokenRequired(),
    ApiGoTrueRateLimited(),
  );
