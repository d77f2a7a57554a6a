import { applyDecorators, HttpCode, Post } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { ApiErrorResponse, OwnTransactions } from '@app/core';
import { LOCAL_LANGUAGES } from '../local/templates/index.js';
import type { AiFunctionDefinition } from './ai-function.js';
import { languageRefused } from './ai-function.runner.js';

/** `generate-blog-cover` → `AiController_generateBlogCover`: the operation ids the OpenAPI document has always had. */
const operationId = (name: string) =>
  `AiController_${name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase())}`;

/**
 * The route of a charged AI function, `POST /functions/v1/<name>`, with its own transactions: the charge
 * commits before the provider is asked (docs/architecture.md § AI credits and functions).
 */
export const ChargedRoute = (fn: AiFunctionDefinition) =>
  applyDecorators(Post(fn.name), HttpCode(200), OwnTransactions());

/**
 * What every charged function documents: its cost, the limits, the refund (`Idempotency-Key`, as on every
 * write, comes from declareIdempotency).
 */
export const ApiCharged = (fn: AiFunctionDefinition, summary: string, description: string) =>
  applyDecorators(
    ApiOperation({
      operationId: operationId(fn.name),
      summary: `${summary} (${fn.credits} credits)`,
      description:
        `${description}\n\nCosts ${fn.credits} AI credits, charged ` +
        `atomically with the store's hourly maximum for this function ` +
        '(see `GET /functions/v1/credits`); a provider failure refunds them. Owners, admins, team members with the ' +
        "`ai` permission, and store keys holding `ai` (charged to the key's store; the ledger records the key).",
    }),
    ApiErrorResponse(402, 'The store has too few credits; nothing charged', {
      code: 'INSUFFICIENT_CREDITS',
      message: `This needs ${fn.credits} AI credits; the store has 1`,
      details: { required: fn.credits, balance: 1 },
    }),
    ApiErrorResponse(
      429,
      "The store's hourly maximum for this function is reached; " +
        '`Retry-After` says when the oldest call leaves the window',
      {
        code: 'RATE_LIMITED',
        message: 'Too many requests: at most 20 per 3600 seconds; retry in 1712 s',
        details: { limit: 20, window_seconds: 3600, retry_after_seconds: 1712 },
      },
    ),
    ApiErrorResponse(502, 'The AI provider failed or answered something unusable; the credits were refunded', {
      code: 'UPSTREAM_FAILED',
      message: `The AI provider did not answer in time. The ${fn.credits} credits were refunded.`,
    }),
    ApiErrorResponse(503, 'AI_PROVIDER=openai without AI_API_KEY; nothing charged', {
      code: 'NOT_CONFIGURED',
      message: 'The AI provider is not configured on this server (AI_PROVIDER=openai needs AI_API_KEY)',
    }),
  );

/** What the offline provider answers for Italian. */
const languageRefusedExample = () => languageRefused('local', 'it', LOCAL_LANGUAGES).message;

/** The 422 of a function whose body has a `language`. */
export const ApiLanguageRefused = () =>
  ApiErrorResponse(
    422,
    `The configured provider does not write \`language\` (the offline ` +
      `\`local\` provider writes ${LOCAL_LANGUAGES.join(', ')}); nothing charged`,
    {
      code: 'UNPROCESSABLE',
      message: languageRefusedExample(),
      details: [{ field: 'language', message: languageRefusedExample() }],
    },
  );
