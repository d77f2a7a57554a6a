import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, getSchemaPath } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrorResponse, NEXT_CURSOR } from '@app/core';
import { AI_FUNCTION_NAMES, CREDIT_COSTS, USAGE_WINDOW_SECONDS } from './credit-costs.js';
import { LedgerEntryView } from './credit-ledger.js';
import { FunctionUsage } from './credits.service.js';

const COSTS_TEXT = AI_FUNCTION_NAMES.map((fn) => `${fn} ${CREDIT_COSTS[fn]}`).join(', ');
const BALANCE = { type: 'integer', description: "The store's AI credits", example: 45 } as const;

/** GET /functions/v1/credits */
export const ApiGetCredits = () =>
  applyDecorators(
    ApiOperation({
      summary: "A store's AI credits",
      description:
        `The balance, each AI function's calls in the ` +
        `last ${USAGE_WINDOW_SECONDS / 60} minutes against its hourly maximum ` +
        '(refunded calls do not count), and the ledger newest first, ' +
        'paginated with `limit` and `cursor` (`next_cursor`). ' +
        'Ledger amounts are signed: grants and refunds add, charges take; a store’s entries sum to its balance. ' +
        `Costs per call: ${COSTS_TEXT}. Owners, admins and team members with the \`billing\` permission.`,
    }),
    ApiExtraModels(FunctionUsage),
    ApiEnvelope(200, {
      balance: BALANCE,
      usage: {
        type: 'object',
        description: 'Per AI function (by route name): its calls in the last hour and its hourly maximum',
        required: [...AI_FUNCTION_NAMES],
        properties: Object.fromEntries(AI_FUNCTION_NAMES.map((fn) => [fn, { $ref: getSchemaPath(FunctionUsage) }])),
      },
      ledger: [LedgerEntryView],
      next_cursor: NEXT_CURSOR,
    }),
  );

/** POST /functions/v1/credits/grant */
export const ApiGrantCredits = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Grant credits to a store (admin)',
      description:
        'Adds a `grant` entry to the ledger and answers the new balance. Only the admin; another role gets 403.',
    }),
    ApiEnvelope(200, { balance: { ...BALANCE, description: "The store's AI credits after the grant", example: 150 } }),
    ApiErrorResponse(403, 'Not the admin', { code: 'FORBIDDEN', message: 'Only admin accounts may do this' }),
    ApiErrorResponse(404, 'No such store', { code: 'NOT_FOUND', message: 'Store not found' }),
  );
