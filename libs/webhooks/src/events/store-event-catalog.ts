import { COMMERCE_EVENTS } from '@app/commerce';
import type { StoreEventDefinitions, StoreEventName, StoreEventPayloads } from '@app/core';

/**
 * The one catalog of store events: every event a webhook can subscribe to, with its JSON Schema,
 * example and description, gathered from the context that raises it. Typed by `StoreEventPayloads`,
 * so a context that declares an event without adding its definitions here does not compile. Lists,
 * counts and the OpenAPI document's event schemas all derive from it.
 */
export const STORE_EVENT_CATALOG: StoreEventDefinitions<StoreEventPayloads> = {
  ...COMMERCE_EVENTS,
};

/** Every store event name, in the catalog's order. */
export const STORE_EVENT_NAMES = Object.keys(STORE_EVENT_CATALOG) as readonly StoreEventName[];

/** Whether `name` is a store event of the catalog. */
export function isStoreEventName(name: unknown): name is StoreEventName {
  return typeof name === 'string' && Object.hasOwn(STORE_EVENT_CATALOG, name);
}
