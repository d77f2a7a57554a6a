import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import {
  decodePreciseCursor,
  encodePreciseCursor,
  queryRows,
  TenantDb,
  toEnvelope,
  toPageWith,
  type Page,
  type StoreEventEnvelope,
} from '@app/core';
import { ListStoreEventsQuery } from './list-store-events.query.js';

interface StoredEventRow {
  id: string;
  event: string;
  store_id: string;
  data: Record<string, unknown>;
  created_at: Date;
  /** created_at to the microsecond, for the cursor. */
  position: string;
}

/**
 * A store's events from the outbox, oldest first (created_at, then id), read in the request's
 * transaction: row-level security shows the caller only the events of stores where it holds the
 * `webhooks` permission, and requests may read only the envelope's columns. Each item is built by the
 * function the relay builds what it publishes with (`toEnvelope`), from the same columns, so it
 * serialises to the very bytes of the webhook body (the dispatch's `JSON.stringify` of that envelope).
 */
@QueryHandler(ListStoreEventsQuery)
export class ListStoreEventsHandler implements IQueryHandler<ListStoreEventsQuery> {
  constructor(private readonly db: TenantDb) {}

  async execute({ storeId, since, type, limit, cursor }: ListStoreEventsQuery): Promise<Page<StoreEventEnvelope>> {
    const after = decodePreciseCursor(cursor);
    const rows = await queryRows<StoredEventRow>(
      this.db.tx,
      `SELECT id, event, store_id, data, created_at,
              to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS position
         FROM outbox_events
        WHERE store_id = $1
          AND ($2::timestamptz IS NULL OR created_at >= $2::timestamptz)
          AND ($3::text IS NULL OR event = $3)
          AND ($4::timestamptz IS NULL OR (created_at, id) > ($4::timestamptz, $5::uuid))
        ORDER BY created_at, id LIMIT $6`,
      [storeId, since, type ?? null, after?.at ?? null, after?.id ?? null, limit + 1],
    );
    return toPageWith(rows, limit, toEnvelope, encodePreciseCursor);
  }
}
