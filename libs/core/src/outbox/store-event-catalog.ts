import type { SchemaObject } from 'ajv';

/**
 * Every store event's name → the type of its `data`. Empty here: each context adds the events it
 * raises, in its own lib, by declaration merging (commerce: `libs/commerce/src/events/commerce-events.ts`):
 *
 * ```ts
 * declare module '@app/core' {
 *   interface StoreEventPayloads extends CommerceEventPayloads {}
 * }
 * ```
 *
 * `OutboxService` takes its names and payloads from here, so a name no context declares, or the data
 * of another event, does not compile. The runtime side (schema, example, description per event) is
 * each context's `StoreEventDefinitions`, gathered into one catalog by the webhooks lib.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface StoreEventPayloads {}

/** The name of a store event some context declares. */
export type StoreEventName = keyof StoreEventPayloads & string;

/** An event and its data, checked against each other: what `OutboxService.appendAll` takes. */
export type StoreEventOf<Name extends StoreEventName = StoreEventName> = {
  [K in Name]: { event: K; data: StoreEventPayloads[K] };
}[Name];

/** The envelope of a store event of the catalog, its `data` typed by its name. */
export type CatalogEventEnvelope<Name extends StoreEventName = StoreEventName> = {
  [K in Name]: { id: string; event: K; created_at: string; store_id: string; data: StoreEventPayloads[K] };
}[Name];

/** What a context says about one event it raises. */
export interface StoreEventDefinition<Data> {
  /** When the event is raised, in a sentence or two (the OpenAPI description of its schema). */
  readonly description: string;
  /** The JSON Schema of `data` (`DataSchema`). */
  readonly schema: DataSchema<Data>;
  /** A realistic `data`; a test checks it against the schema. */
  readonly example: Data;
}

/**
 * The JSON Schema of an event's `data`, in the subset OpenAPI 3.0 schema objects share with JSON
 * Schema (`type`, `nullable`, `enum`, `format`, `pattern`, `minimum`, `required`, `items`,
 * `additionalProperties`), so one object serves ajv and the OpenAPI document. Its top level is
 * checked against the type here: every field of `Data` has a schema and none other does, and
 * `additionalProperties: false` makes ajv refuse a field the type lacks. (ajv's own `JSONSchemaType`
 * cannot express a required field that may be null, which most of ours are.)
 */
export interface DataSchema<Data> extends SchemaObject {
  type: 'object';
  additionalProperties: false;
  required: readonly (keyof Data & string)[];
  properties: { readonly [K in keyof Data]-?: SchemaObject };
}

/** One definition per event of `Payloads` (a context's payload map, or `StoreEventPayloads` for all of them). */
export type StoreEventDefinitions<Payloads> = { readonly [K in keyof Payloads]: StoreEventDefinition<Payloads[K]> };
