import type { MigrationInterface, QueryRunner } from 'typeorm';
import { REQUEST_ROLE } from '@app/core';

/** The columns of an event's envelope: what a request may read of the outbox, and nothing else. */
const ENVELOPE_COLUMNS = 'id, store_id, event, data, created_at';

/**
 * `GET /functions/v1/stores/{store_id}/events` reads the outbox in the request's transaction: requests
 * may read the envelope columns of the events of the stores where the caller holds the `webhooks`
 * permission (owners hold every one; an admin, every store). A column added to the outbox later is not
 * readable by requests unless a migration grants it. The index serves the listing (a store's events
 * by time) without scanning the table.
 */
export class StoreEventReads1763802400100 implements MigrationInterface {
  name = 'StoreEventReads1763802400100';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE INDEX outbox_events_store_idx ON outbox_events (store_id, created_at, id)`);
    await db.query(`GRANT SELECT (${ENVELOPE_COLUMNS}) ON outbox_events TO ${REQUEST_ROLE}`);
    await db.query(`
      CREATE POLICY outbox_events_read ON outbox_events FOR SELECT TO ${REQUEST_ROLE}
      USING ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_store_ids_with('webhooks'))::uuid[]))`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP POLICY outbox_events_read ON outbox_events`);
    await db.query(`REVOKE SELECT (${ENVELOPE_COLUMNS}) ON outbox_events FROM ${REQUEST_ROLE}`);
    await db.query(`DROP INDEX outbox_events_store_idx`);
  }
}
