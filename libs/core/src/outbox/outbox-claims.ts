import type { EntityManager } from 'typeorm';
import { queryRows } from '../database/raw-sql.js';
import type { StoreEventEnvelope } from './store-event.js';
import { isoTimestamp } from '../time/iso-timestamp.js';

// The outbox relay's two claims (outbox-relay.ts), each one statement on the service role's connection.

/** The most rows one claim takes. */
export const BATCH = 200;
/** The longest wait between two publications of an event still owed an acknowledgement. */
export const MAX_REPUBLISH_DELAY_MS = 60 * 60 * 1000;

export interface OutboxRow {
  id: string;
  event: string;
  store_id: string;
  data: Record<string, unknown>;
  created_at: Date;
}

export function toEnvelope(row: OutboxRow): StoreEventEnvelope {
  return {
    id: row.id,
    event: row.event,
    created_at: isoTimestamp(row.created_at),
    store_id: row.store_id,
    data: row.data,
  };
}

/**
 * Marks rows dispatched (the given ids, or the oldest undispatched; rows another relay holds are
 * skipped) and writes what their publication `publication` is owed: one `outbox_owed_acks` row per
 * acknowledging subscriber (`subscribers`, JSON `[{name, events}]`) that handles some of them, due
 * `ackTimeoutMs` ahead. Returns the rows, oldest first.
 */
export function claimUndispatched(
  manager: EntityManager,
  claim: { ids: string[] | null; subscribers: string; publication: string; ackTimeoutMs: number },
): Promise<OutboxRow[]> {
  return queryRows<OutboxRow>(
    manager,
    `WITH subscriber AS (SELECT * FROM json_to_recordset($2::json) AS s(name text, events text[])),
     claimed AS (
       UPDATE outbox_events e SET dispatched_at = now()
        WHERE e.id IN (SELECT id FROM outbox_events
                        WHERE dispatched_at IS NULL AND ($1::uuid[] IS NULL OR id = ANY ($1::uuid[]))
                        ORDER BY created_at, id
                        LIMIT ${BATCH}
                        FOR UPDATE SKIP LOCKED)
       RETURNING e.id, e.event, e.store_id, e.data, e.created_at
     ), owed AS (
       INSERT INTO outbox_owed_acks (publication_id, subscriber, event_ids, due_at)
       SELECT $3::uuid, s.name, array_agg(c.id), now() + make_interval(secs => $4::double precision / 1000)
         FROM subscriber s JOIN claimed c ON s.events IS NULL OR c.event = ANY (s.events)
        GROUP BY s.name
     )
     SELECT * FROM claimed ORDER BY created_at, id`,
    [claim.ids, claim.subscribers, claim.publication, claim.ackTimeoutMs],
  );
}

/**
 * One batch of owed rows of these subscribers whose `due_at` has passed: each gets a later `due_at`
 * (the ack timeout doubling with each publication, up to MAX_REPUBLISH_DELAY_MS). Returns their
 * events, one row per event of each owed row, grouped by owed row.
 */
export function claimOverdue(
  manager: EntityManager,
  subscribers: string[],
  ackTimeoutMs: number,
): Promise<(OutboxRow & { publication_id: string; subscriber: string })[]> {
  return queryRows<OutboxRow & { publication_id: string; subscriber: string }>(
    manager,
    `WITH due AS (
       SELECT publication_id, subscriber FROM outbox_owed_acks
        WHERE due_at <= now() AND subscriber = ANY ($1::text[])
        ORDER BY due_at
        LIMIT ${BATCH}
        FOR UPDATE SKIP LOCKED
     ), marked AS (
       UPDATE outbox_owed_acks o
          SET due_at = now() + make_interval(secs => least($2::double precision * 2 ^ o.publications, $3) / 1000),
              publications = o.publications + 1
         FROM due
        WHERE o.publication_id = due.publication_id AND o.subscriber = due.subscriber
       RETURNING o.publication_id, o.subscriber, o.event_ids
     )
     SELECT m.publication_id, m.subscriber, e.id, e.event, e.store_id, e.data, e.created_at
       FROM marked m
       JOIN outbox_events e ON e.id = ANY (m.event_ids)
      ORDER BY m.publication_id, m.subscriber, e.created_at, e.id`,
    [subscribers, ackTimeoutMs, MAX_REPUBLISH_DELAY_MS],
  );
}
