import type { MigrationInterface, QueryRunner } from 'typeorm';
import { asSystemRole, SYSTEM_ROLE } from '../roles.js';
import { OutboxAcknowledgements1763801600000 } from './1763801600000-outbox-acknowledgements.js';

/**
 * The acknowledgements store events are owed, one row per publication and subscriber, instead of an
 * acknowledgement row per event and a deadline on every event row (docs/architecture.md, "Domain
 * events"). The relay's claim writes one `outbox_owed_acks` row for each acknowledging subscriber that
 * handles some of the claimed events (their ids, and when they are due again); the subscriber's
 * statement deletes it and works only if it did; the relay's sweep publishes again the events of
 * rows whose `due_at` has passed. Per event, the hot path writes no row beyond the claim's update
 * (the per-event rows, with claims kept small, cost the pipeline a sixth of its capacity: docs/performance.md).
 *
 * What is owed when the migration runs carries over (both ways), under an exclusive lock on the tables
 * (a worker of the previous release waits) and as the system role (row-level security shows the
 * migrating owner no row): an event with a deadline gets one row (of its own) for each subscriber of
 * that time that handles its kind and had not acknowledged it. Requests have no rights on the table;
 * the workers reach it through the system policy.
 */
export class OutboxOwedAcknowledgements1763801800000 implements MigrationInterface {
  name = 'OutboxOwedAcknowledgements1763801800000';

  async up(db: QueryRunner): Promise<void> {
    // Workers of the previous release may still claim and acknowledge: nothing moves until this commits.
    await db.query(`LOCK TABLE outbox_events, outbox_acks IN ACCESS EXCLUSIVE MODE`);
    await db.query(`
      CREATE TABLE outbox_owed_acks (
        publication_id uuid NOT NULL,
        subscriber text NOT NULL,
        event_ids uuid[] NOT NULL,
        due_at timestamptz NOT NULL,
        publications integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (publication_id, subscriber)
      )`);
    await db.query(`CREATE INDEX outbox_owed_acks_due_idx ON outbox_owed_acks (due_at)`);
    await db.query(`ALTER TABLE outbox_owed_acks ENABLE ROW LEVEL SECURITY`);
    await db.query(`ALTER TABLE outbox_owed_acks FORCE ROW LEVEL SECURITY`);
    await db.query(`CREATE POLICY outbox_owed_acks_system ON outbox_owed_acks TO ${SYSTEM_ROLE} USING (true) WITH CHECK (true)`);
    await asSystemRole(db, () =>
      db.query(`
      INSERT INTO outbox_owed_acks (publication_id, subscriber, event_ids, due_at, publications)
      SELECT gen_random_uuid(), s.name, ARRAY[e.id], e.republish_at, greatest(e.publications, 1)
        FROM outbox_events e
        JOIN (VALUES ${SUBSCRIBERS_THEN}) AS s(name, events) ON s.events IS NULL OR e.event = ANY (s.events)
       WHERE e.republish_at IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM outbox_acks a WHERE a.event_id = e.id AND a.subscriber = s.name)`),
    );
    await db.query(`DROP TABLE outbox_acks`);
    await db.query(`ALTER TABLE outbox_events DROP COLUMN republish_at, DROP COLUMN publications`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`LOCK TABLE outbox_events, outbox_owed_acks IN ACCESS EXCLUSIVE MODE`);
    // The tables and columns as that migration made them, then the debts moved back into them.
    await new OutboxAcknowledgements1763801600000().up(db);
    // Events still owed: their deadline back, and an acknowledgement from each subscriber that owes them nothing.
    await asSystemRole(db, () =>
      db.query(`
      WITH owed AS (
        SELECT unnest(event_ids) AS event_id, subscriber, due_at, publications FROM outbox_owed_acks
      ), deadline AS (
        UPDATE outbox_events e SET republish_at = o.due_at, publications = o.publications
          FROM (SELECT event_id, min(due_at) AS due_at, max(publications) AS publications FROM owed GROUP BY event_id) o
         WHERE e.id = o.event_id
        RETURNING e.id, e.event
      )
      INSERT INTO outbox_acks (event_id, subscriber)
      SELECT d.id, s.name FROM deadline d
        JOIN (VALUES ${SUBSCRIBERS_THEN}) AS s(name, events) ON s.events IS NULL OR d.event = ANY (s.events)
       WHERE NOT EXISTS (SELECT 1 FROM owed WHERE owed.event_id = d.id AND owed.subscriber = s.name)`),
    );
    await db.query(`DROP TABLE outbox_owed_acks`);
  }
}

/** The acknowledging subscribers when this migration was written, and the events each handles (null: all). */
const SUBSCRIBERS_THEN = `('webhooks', NULL::text[]), ('notifications', ARRAY['inventory.updated'])`;
