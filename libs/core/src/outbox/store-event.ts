/** The envelope every store event travels in (README.md § Store events): to subscribers, and as the webhook body. */
export interface StoreEventEnvelope<Data = Record<string, unknown>> {
  id: string;
  event: string;
  created_at: string;
  store_id: string;
  data: Data;
}

/** Published on the CQRS EventBus by the outbox relay once the change that caused it has committed. */
export class StoreEvent {
  constructor(readonly envelope: StoreEventEnvelope) {}
}
