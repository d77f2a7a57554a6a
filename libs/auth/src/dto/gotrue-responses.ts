import { applyDecorators } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiProperty,
  ApiResponse,
  getSchemaPath,
  type HeadersObject,
  type SchemaObject,
} from '@nestjs/swagger';

/**
 * Every error answer of /auth/v1, in GoTrue's shape, so that supabase-js reads `error.code` and
 * `error.message` as it does against Supabase Auth. The class documents it (`GoTrueErrorBody`).
 */
export class GoTrueErrorBody {
  @ApiProperty({ type: 'integer', description: 'The HTTP status, repeated', example: 400 })
  code!: number;
  @ApiProperty({
    description: 'What went wrong, as a stable code (supabase-js: `error.code`)',
    example: 'invalid_credentials',
  })
  error_code!: string;
  @ApiProperty({
    description: 'What went wrong, for people (supabase-js: `error.message`)',
    example: 'Invalid login credentials',
  })
  msg!: string;
}

/** The header of a 429 or 503: how long to wait. */
export const RETRY_AFTER: HeadersObject = {
  'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer', example: 42 } },
};

/**
 * Documents an error answer of /auth/v1 with GoTrue's schema and an example:
 * `@ApiGoTrueError(422, '`weak_password`', { error_code: 'weak_password', msg: '…' })`.
 * `'default'` documents every status not listed (its example is a 500).
 */
export const ApiGoTrueError = (
  status: number | 'default',
  description: string,
  example: { error_code: string; msg: string },
  headers?: HeadersObject,
) =>
  applyDecorators(
    ApiExtraModels(GoTrueErrorBody),
    ApiResponse({
      status,
      description,
      ...(headers ? { headers } : {}),
      content: {
        'application/json': {
          schema: { $ref: getSchemaPath(GoTrueErrorBody) },
          example: { code: status === 'default' ? 500 : status, ...example },
        },
      },
    }),
  );

/** The 401 of a route that takes the public API key (or a user's token). */
export const ApiGoTrueKeyRequired = () =>
  ApiGoTrueError(
    401,
    '`no_authorization`: neither the public API key nor a token was sent; `invalid_api_key`: a wrong `apikey`',
    {
      error_code: 'no_authorization',
      msg: 'No API key found in request: send the public API key in the apikey header or as a Bearer token',
    },
  );

/** The 401 of a route that takes a signed-in user's token. */
export const ApiGoTrueTokenRequired = () =>
  ApiGoTrueError(
    401,
    '`no_authorization`: no token; `bad_jwt`: an invalid or expired one; ' +
      '`session_not_found`: its session has ended (signed out, or a refresh token was reused)',
    { error_code: 'bad_jwt', msg: 'Invalid or expired access token' },
  );

/** The 429 of the general rate limit (RATE_LIMIT_PER_MINUTE), which every route has. */
export const ApiGoTrueRateLimited = (
  description = '`over_request_rate_limit`: too many requests from this client (RATE_LIMIT_PER_MINUTE)',
) =>
  ApiGoTrueError(
    429,
    description,
    { error_code: 'over_request_rate_limit', msg: 'Too many requests, retry in 42 seconds' },
    RETRY_AFTER,
  );

/** `{}`: what the routes that never tell whether an account exists answer. */
export const EMPTY_OBJECT: SchemaObject = {
  type: 'object',
  additionalProperties: false,
  description: 'Always empty',
  example: {},
};

/**
 * A redirect route: its 302 with the Location it sends the browser to, and `default` for the errors
 * it answers instead of redirecting (GoTrue's shape). The route never answers 2xx.
 */
export const ApiRedirect = (description: string, location: string) =>
  applyDecorators(
    ApiResponse({
      status: 302,
      description,
      headers: { Location: { description: location, schema: { type: 'string', format: 'uri' } } },
    }),
    ApiGoTrueError(
      'default',
      "Any other status: an unexpected failure (500) in GoTrue's shape; the route never answers 2xx",
      {
        error_code: 'unexpected_failure',
        msg: 'Internal error',
      },
    ),
  );
