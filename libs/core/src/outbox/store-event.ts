/** The envelope every store event travels in (docs/api.md § Events): to subscribers, and as the webhook body. */
export interface StoreEventEnvelope<Data = Record<string, unknown>> {
  id: string;
  event: string;
  created_at: string;
  store_id: string;
  data: Data;
}

/**
 * Published on the CQRS EventBus by the outbox relay once the change that caused it has committed.
 * The first publication is for every subscriber; a republication (an acknowledging subscriber did not
 * acknowledge it in time) names the subscribers it is for, and the others ignore it.
 */
export class StoreEvent {
  constructor(
    readonly envelope: StoreEventEnvelope,
    /**
     * The relay's claim that published it (with the other events of that claim): what an acknowledging
     * subscriber acknowledges (`acknowledgeCte`). The same id on every republication.
     */
    readonly publication: string,
    /** null on the first publication; else the acknowledging subscribers that still owe an acknowledgement. */
    readonly republishedFor: readonly string[] | null = null,
  ) {}

  /** Whether the subscriber named `subscriber` should handle this publication. */
  isFor(subscriber: string): boolean {
    return this.republishedFor === null || this.republishedFor.includes(subscriber);
  }
}
