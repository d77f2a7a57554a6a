import { Injectable } from '@nestjs/common';
import { ofType, type IEvent } from '@nestjs/cqrs';
import { Observable, filter, map, type OperatorFunction } from 'rxjs';
import { SystemDb } from '../tenancy/db-handles.js';
import type { CatalogEventEnvelope, StoreEventName } from './store-event-catalog.js';
import { StoreEvent } from './store-event.js';

/**
 * An EventBus subscriber whose work must happen for every event it handles (the webhook dispatch,
 * merchant notifications): it acknowledges the publications of a batch in the statement that does
 * the work (`acknowledgeCte`), and the outbox relay publishes again, to it alone, every publication
 * it has not acknowledged within OUTBOX_ACK_TIMEOUT_MS. The acknowledgement makes the work happen
 * once: a statement that finds the publication acknowledged already does nothing.
 */
export interface AcknowledgingSubscriber<Name extends StoreEventName = StoreEventName> {
  /**
   * Names what it owes (`outbox_owed_acks.subscriber`): what a renamed one owed is published to nobody
   * (docs/extending.md).
   */
  readonly name: string;
  /** The events it handles (and owes an acknowledgement for); every event when left out. */
  readonly events?: readonly Name[];
}

const NAME = /^[a-z][a-z0-9_.-]{0,62}$/;
/**
 * Batches of subscriber work a relay lets run at once before it claims more. One: under load the
 * events committed meanwhile make the next claim larger, so the statements per event fall as the rate
 * rises (with four, the claims stayed small: docs/performance.md, "The event saga").
 */
export const MAX_BATCHES_IN_FLIGHT = 1;

/** The acknowledging subscribers of this process, and the work they have under way. */
@Injectable()
export class StoreEventSubscribers {
  private readonly registered = new Map<string, AcknowledgingSubscriber>();
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly system: SystemDb) {}

  /**
   * Declares a subscriber (at module init, before the relay starts): from then on the relay expects its
   * acknowledgements.
   */
  register(subscriber: AcknowledgingSubscriber): void {
    if (!NAME.test(subscriber.name)) throw new Error(`Invalid subscriber name: ${subscriber.name}`);
    if (this.registered.has(subscriber.name)) throw new Error(`Subscriber ${subscriber.name} is registered twice`);
    this.registered.set(subscriber.name, subscriber);
  }

  get all(): readonly AcknowledgingSubscriber[] {
    return [...this.registered.values()];
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
 * Data-modifying CTEs: `acked` returns the ids of the events (`event_id`) whose publications — the
 * uuid[] parameter `publications` — the subscriber named by the text parameter `subscriber` owed, and
 * acknowledges them (deletes their `outbox_owed_acks` rows). A publication acknowledged before yields
 * nothing, so joining `acked` makes the rest of the statement do its work once per event; two
 * statements acknowledging the same publication at once queue on its row, and the second finds it gone.
 */
export function acknowledgeCte(subscriber: string, publications: string): string {
  return `acked_publication AS (
    DELETE FROM outbox_owed_acks
     WHERE subscriber = ${subscriber}::text AND publication_id = ANY (${publications}::uuid[])
    RETURNING event_ids
  ), acked AS (
    SELECT unnest(event_ids) AS event_id FROM acked_publication
  )`;
}

/**
 * What one acknowledging subscriber is handed by one relay publication: its events and the publications they came in.
 */
export interface StoreEventBatch<Name extends StoreEventName = StoreEventName> {
  readonly envelopes: CatalogEventEnvelope<Name>[];
  /** The ids to acknowledge (`acknowledgeCte`). */
  readonly publications: string[];
}

/**
 * The EventBus stream of the store events `subscriber` handles, as batches: the events one relay
 * publication carries (published together, in one synchronous call) arrive as one batch, so that a
 * saga can turn them into one command and the handler into one statement. No timer: a batch closes
 * at the end of the publishing call.
 */
export function storeEventsFor<Name extends StoreEventName>(
  subscriber: AcknowledgingSubscriber<Name>,
): OperatorFunction<IEvent, StoreEventBatch<Name>> {
  const handles = (event: StoreEvent) =>
    event.isFor(subscriber.name) &&
    (!subscriber.events || (subscriber.events as readonly string[]).includes(event.envelope.event));
  return (events$) =>
    events$.pipe(
      ofType(StoreEvent),
      filter(handles),
      batchedPerCall(),
      map((events) => ({
        // The outbox holds what OutboxService appended, which the catalog types.
        envelopes: events.map((event) => event.envelope as unknown as CatalogEventEnvelope<Name>),
        publications: [...new Set(events.map((event) => event.publication))],
      })),
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
