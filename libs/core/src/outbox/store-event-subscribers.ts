import { Injectable } from '@nestjs/common';
import { ofType, type IEvent } from '@nestjs/cqrs';
import { Observable, filter, map, type OperatorFunction } from 'rxjs';
import { SystemDb } from '../database/scoped-db.js';
import type { CatalogEventEnvelope, StoreEventName } from './store-event-catalog.js';
import { StoreEvent } from './store-event.js';

/**
 * An EventBus subscriber whose work must happen for every event it handles (the webhook dispatch,
 * merchant notifications): it acknowledges each event in the statement that does the work
 * (`acknowledgeCte`), and the outbox relay publishes again, to it alone, every event it has not
 * acknowledged within OUTBOX_ACK_TIMEOUT_MS. Its work must be idempotent per event: a republication
 * may reach it after it did the work but before the relay saw the acknowledgement.
 */
export interface AcknowledgingSubscriber<Name extends StoreEventName = StoreEventName> {
  /** Recorded with each acknowledgement (`outbox_acks.subscriber`): renaming one with events in flight republishes them. */
  readonly name: string;
  /** The events it handles (and owes an acknowledgement for); every event when left out. */
  readonly events?: readonly Name[];
}

const NAME = /^[a-z][a-z0-9_.-]{0,62}$/;
/** Batches of subscriber work a relay lets run at once before it claims more. */
export const MAX_BATCHES_IN_FLIGHT = 4;

/** The acknowledging subscribers of this process, and the work they have under way. */
@Injectable()
export class StoreEventSubscribers {
  private readonly registered = new Map<string, AcknowledgingSubscriber>();
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly system: SystemDb) {}

  /** Declares a subscriber (at module init, before the relay starts): from then on the relay expects its acknowledgements. */
  register(subscriber: AcknowledgingSubscriber): void {
    if (!NAME.test(subscriber.name)) throw new Error(`Invalid subscriber name: ${subscriber.name}`);
    if (this.registered.has(subscriber.name)) throw new Error(`Subscriber ${subscriber.name} is registered twice`);
    this.registered.set(subscriber.name, subscriber);
  }

  get all(): readonly AcknowledgingSubscriber[] {
    return [...this.registered.values()];
  }

  /**
   * The other acknowledging subscribers than `name`, and the events each owes, as the JSON parameter
   * `acknowledgeCte` reads to tell whether its acknowledgement was the last one an event awaited.
   */
  othersOf(name: string): string {
    return JSON.stringify(
      this.all.filter((subscriber) => subscriber.name !== name).map((s) => ({ name: s.name, events: s.events ?? null })),
    );
  }

  /**
   * Runs a subscriber's work for a batch as the system, counted as under way until it ends, so that a
   * shutdown lets it write its acknowledgements before the connections close (`settled`).
   */
  handle<T>(work: () => Promise<T>): Promise<T> {
    const running = this.system.run(work);
    // Settles when the work does, never rejects: its failure is the caller's to report, not this set's.
    const tracked: Promise<unknown> = running.then(
      () => this.inFlight.delete(tracked),
      () => this.inFlight.delete(tracked),
    );
    this.inFlight.add(tracked);
    return running;
  }

  /**
   * Resolves once fewer than `limit` batches are under way: the relay waits for it before it claims
   * more, so a backlog is handed over a few batches at a time rather than all at once.
   */
  async room(limit = MAX_BATCHES_IN_FLIGHT): Promise<void> {
    while (this.inFlight.size >= limit) await Promise.race(this.inFlight);
  }

  /** Resolves once the work under way has ended (including work for events published a moment ago). */
  async settled(): Promise<void> {
    // A batch published just now reaches its handler a few microtasks later: let them run first.
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all([...this.inFlight]);
  }
}

/**
 * Data-modifying CTEs: `acked` records the acknowledgement of the events whose ids are the uuid[]
 * parameter `ids` by the subscriber named by the text parameter `subscriber`, and answers the ids
 * acknowledged by this statement (`event_id`): an event acknowledged before is not among them, so
 * joining `acked` makes the rest of the statement do its work once per event. `settled` clears the
 * relay's deadline (`republish_at`) of the events this acknowledgement completes — none of the other
 * subscribers (the JSON parameter `others`, from `StoreEventSubscribers.othersOf`) still owes one —
 * so the relay's overdue sweep has nothing left to look at for them. Acknowledgements committed at
 * the same moment may each see the other missing; the sweep then clears the deadline instead.
 */
export function acknowledgeCte(subscriber: string, ids: string, others: string): string {
  return `acked AS (
    INSERT INTO outbox_acks (event_id, subscriber)
    SELECT id, ${subscriber}::text FROM unnest(${ids}::uuid[]) AS id
    ON CONFLICT DO NOTHING
    RETURNING event_id
  ), settled AS (
    UPDATE outbox_events e SET republish_at = NULL
     WHERE e.id IN (SELECT event_id FROM acked) AND e.republish_at IS NOT NULL
       AND NOT EXISTS (
         SELECT 1 FROM json_to_recordset(${others}::json) AS s(name text, events text[])
          WHERE (s.events IS NULL OR e.event = ANY (s.events))
            AND NOT EXISTS (SELECT 1 FROM outbox_acks a WHERE a.event_id = e.id AND a.subscriber = s.name)))`;
}

/**
 * The EventBus stream of the store events `subscriber` handles, as batches: the events one relay
 * publication carries (published together, in one synchronous call) arrive as one array, so that a
 * saga can turn them into one command and the handler into one statement. No timer: a batch closes
 * at the end of the publishing call.
 */
export function storeEventsFor<Name extends StoreEventName>(
  subscriber: AcknowledgingSubscriber<Name>,
): OperatorFunction<IEvent, CatalogEventEnvelope<Name>[]> {
  const handles = (event: StoreEvent) =>
    event.isFor(subscriber.name) && (!subscriber.events || (subscriber.events as readonly string[]).includes(event.envelope.event));
  return (events$) =>
    events$.pipe(
      ofType(StoreEvent),
      filter(handles),
      // The outbox holds what OutboxService appended, which the catalog types.
      map((event) => event.envelope as unknown as CatalogEventEnvelope<Name>),
      batchedPerCall(),
    );
}

/** Groups the values a source emits within one synchronous call into an array, emitted right after (a microtask). */
export function batchedPerCall<T>(): OperatorFunction<T, T[]> {
  return (source) =>
    new Observable<T[]>((subscriber) => {
      let batch: T[] | null = null;
      const flush = () => {
        const values = batch;
        batch = null;
        if (values) subscriber.next(values);
      };
      return source.subscribe({
        next: (value) => {
          if (batch) return void batch.push(value);
          batch = [value];
          queueMicrotask(flush);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          flush();
          subscriber.complete();
        },
      });
    });
}
