import { Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Roles } from '@app/auth';
import { ApiFunctionRoute, StoreScoped, Body, Query } from '@app/core';
import { CreditsQueryDto, GrantCreditsDto } from './credits.dto.js';
import { CreditsService } from './credits.service.js';
import { ApiGetCredits, ApiGrantCredits } from './credits.openapi.js';

/** AI credits: a store's balance, usage and ledger; admin grants. */
@ApiTags('credits')
@ApiFunctionRoute()
@Controller('functions/v1/credits')
export class CreditsController {
  constructor(private readonly credits: CreditsService) {}

  @Get()
  @StoreScoped({ from: 'query', need: 'billing', customers: false })
  @ApiGetCredits()
  async get(@Query() query: CreditsQueryDto) {
    return { success: true, ...(await this.credits.overview(query.store_id, query.limit, query.cursor)) };
  }

  @Post('grant')
  @HttpCode(200)
  @Roles('admin')
  @ApiGrantCredits()
  async grant(@Body() body: GrantCreditsDto) {
    return { success: true, balance: await this.credits.grant(body.store_id, body.amount, body.reason) };
  }
}
