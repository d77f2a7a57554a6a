import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { Roles } from '@app/auth';
import { ApiEnvelope, ApiErrorResponse, ApiFunctionRoute, NEXT_CURSOR, StoreScoped } from '@app/core';
import { AI_FUNCTION_NAMES, CREDIT_COSTS, USAGE_WINDOW_SECONDS } from './credit-costs.js';
import { LedgerEntryView } from './credit-ledger.js';
import { CreditsQueryDto, GrantCreditsDto } from './credits.dto.js';
import { CreditsService, FunctionUsage } from './credits.service.js';

const COSTS_TEXT = AI_FUNCTION_NAMES.map((fn) => `${fn} ${CREDIT_COSTS[fn]}`).join(', ');
const BALANCE = { type: 'integer', description: "The store's AI credits", example: 45 } as const;

/** AI credits: a store's balance, usage and ledger; admin grants. */
@ApiTags('credits')
@ApiFunctionRoute()
@Controller('functions/v1/credits')
export class CreditsController {
  constructor(private readonly credits: CreditsService) {}

  @Get()
  @StoreScoped({ from: 'query', need: 'billing', customers: false })
  @ApiOperation({
    summary: "A store's AI credits",
    description:
      `The balance, each AI function's calls in the last ${USAGE_WINDOW_SECONDS / 60} minutes against its hourly maximum ` +
      '(refunded calls do not count), and the ledger newest first, paginated with `limit` and `cursor` (`next_cursor`). ' +
      'Ledger amounts are signed: grants and refunds add, charges take; a store’s entries sum to its balance. ' +
      `Costs per call: ${COSTS_TEXT}. Owners, admins and team members with the \`billing\` permission.`,
  })
  @ApiExtraModels(FunctionUsage)
  @ApiEnvelope(200, {
    balance: BALANCE,
    usage: {
      type: 'object',
      description: 'Per AI function (by route name): its calls in the last hour and its hourly maximum',
      required: [...AI_FUNCTION_NAMES],
      properties: Object.fromEntries(AI_FUNCTION_NAMES.map((fn) => [fn, { $ref: getSchemaPath(FunctionUsage) }])),
    },
    ledger: [LedgerEntryView],
    next_cursor: NEXT_CURSOR,
  })
  async get(@Query() query: CreditsQueryDto) {
    return { success: true, ...(await this.credits.overview(query.store_id, query.limit, query.cursor)) };
  }

  @Post('grant')
  @HttpCode(200)
  @Roles('admin')
  @ApiOperation({
    summary: 'Grant credits to a store (admin)',
    description: 'Adds a `grant` entry to the ledger and answers the new balance. Only the admin; another role gets 403.',
  })
  @ApiEnvelope(200, { balance: { ...BALANCE, description: "The store's AI credits after the grant", example: 150 } })
  @ApiErrorResponse(403, 'Not the admin', { code: 'FORBIDDEN', message: 'Only admin accounts may do this' })
  @ApiErrorResponse(404, 'No such store', { code: 'NOT_FOUND', message: 'Store not found' })
  async grant(@Body() body: GrantCreditsDto) {
    return { success: true, balance: await this.credits.grant(body.store_id, body.amount, body.reason) };
  }
}
