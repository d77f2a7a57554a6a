import { applyDecorators } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiSecurity } from '@nestjs/swagger';
import { ApiGoTrueError, ApiGoTrueRateLimited, ApiRedirect } from './dto/gotrue-responses.js';

// The OpenAPI documentation of AuthController's Google sign-in routes.

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

/** GET /auth/v1/authorize */
export const ApiAuthorize = () =>
  applyDecorators(
    ApiSecurity({}),
    ApiOperation({
      summary: "Start Google sign-in: redirects to Google's consent page (state + PKCE)",
      description:
        'Open it in the browser (supabase-js `signInWithOAuth({ provider: "google" })`). After the consent page ' +
        'Google returns to GET /auth/v1/callback, which sends the browser on to `redirect_to` signed in. Needs ' +
        'GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET on the server. With `code_challenge` (supabase-js `flowType: ' +
        '"pkce"`) the callback returns `redirect_to?code=<auth_code>` for grant_type=pkce.',
    }),
    ApiQuery(PKCE_QUERY[1]),
    ApiQuery(PKCE_QUERY[0]),
    ApiQuery({
      name: 'redirect_to',
      type: String,
      description: 'Where to return; must be on ALLOWED_REDIRECT_ORIGINS',
      example: 'http://localhost:5173/welcome',
    }),
    ApiQuery({ name: 'provider', enum: ['google'] }),
    ApiRedirect("To Google's consent page", "Google's authorization URL, with this sign-in's state and PKCE challenge"),
    ApiGoTrueError(
      400,
      '`validation_failed`: a provider other than google, `redirect_to` not on an allowed origin, or a bad PKCE ' +
        'challenge; `provider_disabled`: Google sign-in not configured',
      {
        error_code: 'validation_failed',
        msg: 'Unsupported provider: only google is available',
      },
    ),
    ApiGoTrueRateLimited(),
  );

/** GET /auth/v1/callback */
export const ApiGoogleCallback = () =>
  applyDecorators(
    ApiSecurity({}),
    ApiOperation({
      summary: 'Google returns here; redirects to redirect_to signed in (the session in the fragment, or an auth code)',
      description:
        "Google's redirect, not called by apps. With a known `state` the browser always goes on to the sign-in's " +
        '`redirect_to`: signed in, or with `error=…&error_description=…` when the user declined or the sign-in ' +
        'failed (in the query when the sign-in was started with a PKCE `code_challenge`, else in the fragment). A ' +
        'missing, expired or used `state` answers 400.',
    }),
    ApiRedirect(
      "To the sign-in's `redirect_to`, signed in or with the failure",
      '`redirect_to?code=…` (PKCE), ' +
        '`redirect_to#access_token=…&refresh_token=…&expires_in=3600&expires_at=…&token_type=bearer`, or ' +
        '`#error=…&error_description=…`',
    ),
    ApiGoTrueError(400, '`bad_oauth_state`: the `state` is missing, expired or already used', {
      error_code: 'bad_oauth_state',
      msg: 'OAuth state is missing, expired or already used',
    }),
    ApiGoTrueRateLimited(),
  );
