import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import {
  ApiEnvelope,
  ApiErrorResponse,
  ApiFunctionRoute,
  ApiPage,
  CurrentUser,
  PageQueryDto,
  StoreScoped,
  type UserPrincipal,
} from '@app/core';
import { Roles } from '@app/auth';
import { CreateStoreCommand } from './commands/create-store/create-store.command.js';
import { UpdateStoreCommand } from './commands/update-store/update-store.command.js';
import { GetStoreQuery } from './queries/get-store/get-store.query.js';
import { ListStoresQuery } from './queries/list-stores/list-stores.query.js';
import { CreateStoreDto, UpdateStoreDto } from './store.dto.js';
import { StoreView } from './store.js';

@ApiTags('stores')
@ApiFunctionRoute()
@Controller('functions/v1/stores')
export class StoresController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Post()
  @HttpCode(201)
  @Roles('merchant', 'admin')
  @ApiOperation({
    summary: 'Create a store owned by the caller (merchants and admins)',
    description:
      'The store opens with its AI credit account holding the welcome credits (STORE_WELCOME_CREDITS), in the same transaction. ' +
      'Currency, language and time zone default to USD, en and UTC.',
  })
  @ApiEnvelope(201, { store: StoreView })
  @ApiErrorResponse(403, 'Team members and customers cannot create stores', {
    code: 'FORBIDDEN',
    message: 'Only merchant, admin accounts may do this',
  })
  async create(@CurrentUser() user: UserPrincipal, @Body() body: CreateStoreDto) {
    return { success: true, store: await this.commands.execute(new CreateStoreCommand(user.userId, body)) };
  }

  @Get()
  @ApiOperation({
    summary: 'The stores the caller can see: owned, member of, customer of (admins: all)',
    description: 'Newest first, paginated with `limit` and `cursor` (`next_cursor`).',
  })
  @ApiPage(StoreView)
  async list(@Query() page: PageQueryDto) {
    return { success: true, ...(await this.queries.execute(new ListStoresQuery(page.limit, page.cursor))) };
  }

  @Get(':store_id')
  @ApiParam({ name: 'store_id', format: 'uuid' })
  @StoreScoped({ from: 'param', need: 'read' })
  @ApiOperation({
    summary: 'One store',
    description:
      'Anyone with a relation to the store: its owner, a team member, a customer, or an admin. Others get 404, as for a store that does not exist.',
  })
  @ApiEnvelope(200, { store: StoreView })
  async get(@Param('store_id') storeId: string) {
    return { success: true, store: await this.queries.execute(new GetStoreQuery(storeId)) };
  }

  @Patch(':store_id')
  @ApiParam({ name: 'store_id', format: 'uuid' })
  @StoreScoped({ from: 'param', need: 'manage' })
  @ApiOperation({
    summary: "Change a store's settings (owner or admin)",
    description:
      'Any of name, currency, default language and time zone; fields left out keep their value. Past orders keep the currency they were placed in.',
  })
  @ApiEnvelope(200, { store: StoreView })
  async update(@Param('store_id') storeId: string, @Body() body: UpdateStoreDto) {
    return { success: true, store: await this.commands.execute(new UpdateStoreCommand(storeId, body)) };
  }
}
