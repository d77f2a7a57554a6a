import { Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import { Roles } from '@app/auth';
import {
  ApiError,
  ApiFunctionRoute,
  CurrentUser,
  PageQueryDto,
  type UserPrincipal,
  StoreScoped,
  Body,
  Query,
} from '@app/core';
import { CreateApiKeyDto } from './api-key.dto.js';
import { CreateApiKeyCommand } from './commands/create-api-key.js';
import { RevokeApiKeyCommand } from './commands/revoke-api-key.js';
import { ListApiKeysQuery } from './queries/list-api-keys.js';
import { ApiCreateApiKey, ApiListApiKeys, ApiRevokeApiKey } from './api-keys.openapi.js';

const apiKeyId = new ParseUUIDPipe({
  exceptionFactory: () => ApiError.validation([{ field: 'api_key_id', message: 'api_key_id must be a UUID' }]),
});

/**
 * Store keys, for a merchant's servers: made, listed and revoked by the store's owner (or an admin);
 * a key itself never reaches these routes (JwtAuthGuard refuses keys on `manage` and unscoped routes).
 */
@ApiTags('api-keys')
@ApiFunctionRoute()
@Controller('functions/v1')
export class ApiKeysController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Post('stores/:store_id/api-keys')
  @HttpCode(201)
  @StoreScoped({ from: 'param', need: 'manage' })
  @ApiCreateApiKey()
  async create(@Param('store_id') storeId: string, @Body() body: CreateApiKeyDto, @CurrentUser() user: UserPrincipal) {
    const { apiKey, secret } = await this.commands.execute(
      new CreateApiKeyCommand(storeId, user.userId, body.name, body.permissions, body.expires_at),
    );
    return { success: true, api_key: apiKey, secret };
  }

  @Get('stores/:store_id/api-keys')
  @StoreScoped({ from: 'param', need: 'manage' })
  @ApiListApiKeys()
  async list(@Param('store_id') storeId: string, @Query() page: PageQueryDto) {
    return { success: true, ...(await this.queries.execute(new ListApiKeysQuery(storeId, page.limit, page.cursor))) };
  }

  @Delete('api-keys/:api_key_id')
  @Roles('merchant', 'admin', { message: 'Only the store owner may do this' })
  @ApiRevokeApiKey()
  async revoke(@Param('api_key_id', apiKeyId) id: string) {
    await this.commands.execute(new RevokeApiKeyCommand(id));
    return { success: true, message: 'API key revoked' };
  }
}
