import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import { ApiFunctionRoute, StoreScoped, Query } from '@app/core';
import { ListStoreEventsQuery } from './list-store-events/list-store-events.query.js';
import { ListStoreEventsParams } from './store-event.dto.js';
import { ApiListStoreEvents } from './store-events.openapi.js';

/** The store's events, as its webhooks receive them: for reconciling after an outage. */
@ApiTags('webhooks')
@ApiFunctionRoute()
@Controller('functions/v1/stores/:store_id/events')
export class StoreEventsController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @StoreScoped({ from: 'param', need: 'webhooks' })
  @ApiListStoreEvents()
  async list(@Param('store_id') storeId: string, @Query() params: ListStoreEventsParams) {
    // Before 1970 nothing was written: such a `since` means from the oldest event kept.
    const since = params.since === undefined ? null : new Date(Math.max(Date.parse(params.since), 0));
    const query = new ListStoreEventsQuery(storeId, since, params.type, params.limit, params.cursor);
    return { success: true, ...(await this.queries.execute(query)) };
  }
}
