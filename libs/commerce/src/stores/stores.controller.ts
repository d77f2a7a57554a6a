import { Controller, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import { ApiFunctionRoute, CurrentUser, PageQueryDto, StoreScoped, type UserPrincipal, Body, Query } from '@app/core';
import { Roles } from '@app/auth';
import { CreateStoreCommand } from './commands/create-store/create-store.command.js';
import { UpdateStoreCommand } from './commands/update-store/update-store.command.js';
import { GetStoreQuery } from './queries/get-store/get-store.query.js';
import { ListStoresQuery } from './queries/list-stores/list-stores.query.js';
import { CreateStoreDto, UpdateStoreDto } from './store.dto.js';
import { ApiCreateStore, ApiListStores, ApiGetStore, ApiUpdateStore } from './stores.openapi.js';

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
  @ApiCreateStore()
  async create(@CurrentUser() user: UserPrincipal, @Body() body: CreateStoreDto) {
    return { success: true, store: await this.commands.execute(new CreateStoreCommand(user.userId, body)) };
  }

  @Get()
  @ApiListStores()
  async list(@Query() page: PageQueryDto) {
    return { success: true, ...(await this.queries.execute(new ListStoresQuery(page.limit, page.cursor))) };
  }

  @Get(':store_id')
  @StoreScoped({ from: 'param', need: 'read' })
  @ApiGetStore()
  async get(@Param('store_id') storeId: string) {
    return { success: true, store: await this.queries.execute(new GetStoreQuery(storeId)) };
  }

  @Patch(':store_id')
  @StoreScoped({ from: 'param', need: 'manage' })
  @ApiUpdateStore()
  async update(@Param('store_id') storeId: string, @Body() body: UpdateStoreDto) {
    return { success: true, store: await this.commands.execute(new UpdateStoreCommand(storeId, body)) };
  }
}
