import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SYSTEM_ROLE } from '../roles.js';

/**
 * Acknowledgements of store events by the subscribers that must handle each one (docs/architecture.md,
 * "Domain events"). The relay publishes an event on the EventBus and sets `republish_at`; a subscriber
 * that guarantees its work (an acknowledging subscriber) writes `(event_id, subscriber)` into `outbox_acks` in the statement that
 * does the work; the relay's sweep publishes again, to the subscribers that owe an acknowledgement,
 * every event whose `republish_at` has passed, and clears `republish_at` once none is owed.
 * `publications` counts the publications (the back-off between republications doubles with it).
 *
 * No foreign key from the acknowledgements to the events: the check would cost the acknowledging
 * statement a lookup and a lock per event. The outbox retention deletes an event's acknowledgements
 * with it. Events dispatched before this migration owe nothing (`republish_at` null): the relay
 * handed them to the webhook dispatch before marking them. Requests have no rights on the table (the
 * default privileges give them none); the workers reach it through the system policy.
 */
export class OutboxAcknowledgements1763801600000 implements MigrationInterface {
  name = 'OutboxAcknowledgements1763801600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE outbox_events ADD COLUMN republish_at timestamptz, ADD COLUMN publications integer NOT NULL DEFAULT 0`);
    await db.query(`CREATE INDEX outbox_events_republish_idx ON outbox_events (republish_at) WHERE republish_at IS NOT NULL`);
    await db.query(`
      CREATE TABLE outbox_acks (
        event_id uuid NOT NULL,
        subscriber text NOT NULL,
        acked_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (event_id, subscriber)
      )`);
    await db.query(`ALTER TABLE outbox_acks ENABLE ROW LEVEL SECURITY`);
    await db.query(`ALTER TABLE outbox_acks FORCE ROW LEVEL SECURITY`);
    await db.query(`CREATE POLICY outbox_acks_system ON outbox_acks TO ${SYSTEM_ROLE} USING (true) WITH CHECK (true)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE outbox_acks`);
    await db.query(`ALTER TABLE outbox_events DROP COLUMN republish_at, DROP COLUMN publications`);
  }
}
