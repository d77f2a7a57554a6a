import { Controller, Get, Param, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiFunctionRoute, NEXT_CURSOR, StoreScoped } from '@app/core';
import { ListStoreEventsQuery } from './list-store-events/list-store-events.query.js';
import { STORE_EVENT_ENVELOPE_SCHEMA } from './store-event-openapi.js';
import { ListStoreEventsParams } from './store-event.dto.js';

/** The store's events, as its webhooks receive them: for reconciling after an outage. */
@ApiTags('webhooks')
@ApiFunctionRoute()
@Controller('functions/v1/stores/:store_id/events')
export class StoreEventsController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @ApiParam({ name: 'store_id', format: 'uuid' })
  @StoreScoped({ from: 'param', need: 'webhooks' })
  @ApiOperation({
    summary: "A store's events, oldest first",
    description:
      'The envelopes `{id, event, created_at, store_id, data}` of the store events, exactly as a webhook ' +
      'subscribed to them receives them (the same JSON, key for key), whatever webhooks exist: to reconcile after ' +
      'a receiver was down or a webhook disabled. Oldest first (`created_at`, then `id`). Filters: `since` ' +
      '(created at or after it; default the oldest event kept: at least the last 30 days are kept) and `type` ' +
      '(one event kind). Staff with the `webhooks` permission, owners and admins. An event is listed once its ' +
      'change has committed, possibly a moment before its webhooks receive it; `created_at` is when it was ' +
      'written, so an event can appear behind one listed before: when polling, ask again from a few minutes ' +
      'before the last `created_at` seen and de-duplicate on `id`.',
  })
  @ApiEnvelope(200, {
    data: { type: 'array', items: { $ref: `#/components/schemas/${STORE_EVENT_ENVELOPE_SCHEMA}` } },
    next_cursor: NEXT_CURSOR,
  })
  async list(@Param('store_id') storeId: string, @Query() params: ListStoreEventsParams) {
    // Before 1970 nothing was written: such a `since` means from the oldest event kept.
    const since = params.since === undefined ? null : new Date(Math.max(Date.parse(params.since), 0));
    const query = new ListStoreEventsQuery(storeId, since, params.type, params.limit, params.cursor);
    return { success: true, ...(await this.queries.execute(query)) };
  }
}
