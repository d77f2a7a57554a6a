import { applyDecorators } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOkResponse, ApiOperation, type SchemaObject } from '@nestjs/swagger';
import { ApiErrorDetailsResponse } from '../openapi/api-responses.js';

/** The checks of the readiness answer, by name (`postgres`, `redis`), as @nestjs/terminus reports them. */
const checks = (description: string, example: Record<string, { status: 'up' | 'down' }>): SchemaObject => ({
  type: 'object',
  description,
  additionalProperties: {
    type: 'object',
    required: ['status'],
    properties: { status: { type: 'string', enum: ['up', 'down'] } },
  },
  example,
});
const BOTH_UP = { postgres: { status: 'up' }, redis: { status: 'up' } } as const;

/** GET /health */
export const ApiLive = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Liveness: the process answers',
      description: 'Checks nothing else: for a liveness probe. Not rate limited, no credentials.',
    }),
    ApiOkResponse({
      description: 'The process is up',
      schema: {
        type: 'object',
        required: ['status'],
        properties: { status: { type: 'string', enum: ['ok'] } },
        example: { status: 'ok' },
      },
    }),
  );

/** GET /health/ready */
export const ApiReady = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Readiness: PostgreSQL and Redis reachable',
      description:
        'For a readiness probe: 200 while both answer, 503 naming the one ' +
        'that does not. Not rate limited, no credentials, never cached.',
    }),
    ApiOkResponse({
      description: 'Both dependencies answer',
      schema: {
        type: 'object',
        required: ['status', 'info', 'error', 'details'],
        properties: {
          status: { type: 'string', enum: ['ok'] },
          info: checks('The checks that passed', BOTH_UP),
          error: checks('The checks that failed: none', {}),
          details: checks('Every check', BOTH_UP),
        },
      },
    }),
    ApiErrorDetailsResponse(
      503,
      '`SERVICE_UNAVAILABLE`, with Retry-After: a dependency is down; `details` gives each one `up` or `down`',
      { type: 'object', additionalProperties: { type: 'string', enum: ['up', 'down'] } },
      {
        code: 'SERVICE_UNAVAILABLE',
        message: 'Not ready: postgres unreachable',
        details: { postgres: 'down', redis: 'up' },
      },
    ),
  );

/** GET /metrics */
export const ApiMetrics = () => applyDecorators(ApiExcludeEndpoint());
