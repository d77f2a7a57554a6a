import { Injectable } from '@nestjs/common';
import { queryRows } from '../database/raw-sql.js';
import { TenantDb } from '../tenancy/db-handles.js';
import type { StoreEventName, StoreEventOf, StoreEventPayloads } from './store-event-catalog.js';

/**
 * Appends store events to the outbox in the current transaction: they exist exactly when the change
 * commits. Each names who acted (`actor`: the user or store key the transaction is bound to, read by
 * the database once per statement; the webhook envelope does not carry it). Typed by the event catalog
 * (`StoreEventPayloads`): an event no context declares, or data of another event's shape, does not compile.
 * In a request transaction the statements go straight to its connection, as named statements (`queryRows`).
 */
@Injectable()
export class OutboxService {
  constructor(private readonly db: TenantDb) {}

  async append<Name extends StoreEventName>(
    storeId: string,
    event: Name,
    data: StoreEventPayloads[Name],
  ): Promise<void> {
    await this.appendAll(storeId, [{ event, data } as StoreEventOf]);
  }

  /** Several events of one change in one statement, in the given order (their created_at ascends with it). */
  async appendAll(storeId: string, events: readonly StoreEventOf[]): Promise<void> {
    if (events.length === 0) return;
    if (events.length === 1) {
      await queryRows(
        this.db.tx,
        'INSERT INTO outbox_events (store_id, event, data, actor) VALUES ($1, $2, $3, (SELECT app_actor()))',
        [storeId, events[0].event, JSON.stringify(events[0].data)],
      );
      return;
    }
    await queryRows(
      this.db.tx,
      // created_at is clock_timestamp() per row; the added microseconds keep it strictly ascending even
      // when two rows read the same clock, so the relay (ordering by created_at) keeps the given order.
      `INSERT INTO outbox_events (store_id, event, data, created_at, actor)
       SELECT $1, e.event, e.data, clock_timestamp() + make_interval(secs => e.position / 1e6), (SELECT app_actor())
         FROM ROWS FROM (json_to_recordset($2::json) AS (event text, data jsonb)) WITH ORDINALITY
           AS e(event, data, position)
        ORDER BY e.position`,
      [storeId, JSON.stringify(events)],
    );
  }
}
