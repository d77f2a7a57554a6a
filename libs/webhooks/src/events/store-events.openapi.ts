import { applyDecorators } from '@nestjs/common';
import { ApiOperation, ApiParam } from '@nestjs/swagger';
import { ApiEnvelope, NEXT_CURSOR } from '@app/core';
import { STORE_EVENT_ENVELOPE_SCHEMA } from './store-event-openapi.js';

/** GET /functions/v1/stores/{store_id}/events */
export const ApiListStoreEvents = () =>
  applyDecorators(
    ApiParam({ name: 'store_id', format: 'uuid' }),
    ApiOperation({
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
    }),
    ApiEnvelope(200, {
      data: { type: 'array', items: { $ref: `#/components/schemas/${STORE_EVENT_ENVELOPE_SCHEMA}` } },
      next_cursor: NEXT_CURSOR,
    }),
  );
