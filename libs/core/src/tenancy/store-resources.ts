/**
 * The kinds of store record a store-scoped route may name by id (`@StoreScoped({ from: 'order' })`):
 * the caller lookup asks the database for the record's store, and the guard hides a record of another
 * store as a 404 naming the kind. Core knows none of them: each context declares its own in its
 * `store-resources.ts`, by adding the kind to this interface (module augmentation of `@app/core`)
 * and registering its path parameter and name (`registerStoreResources`). A controller that names a
 * kind imports that file, so the kind is registered before its routes are declared.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by each context's augmentation
export interface StoreResources {}

/** A registered kind of store record (`product`, `order`, `webhook`…). */
export type StoreResource = keyof StoreResources & string;

export interface StoreResourceKind {
  /**
   * The path parameter (or body field) that carries the record's id unless the rule says otherwise, e.g. `order_id`.
   */
  key: string;
  /** The record's name in the guard's 404 (`Order not found`). */
  name: string;
}

const registered = new Map<string, StoreResourceKind>();

/** Registers a context's kinds of store record; the same kind registered again must say the same. */
export function registerStoreResources(kinds: { [K in StoreResource]?: StoreResourceKind }): void {
  for (const [resource, kind] of Object.entries(kinds) as [string, StoreResourceKind][]) {
    const known = registered.get(resource);
    if (known && (known.key !== kind.key || known.name !== kind.name)) {
      throw new Error(`The store resource '${resource}' is registered twice, differently`);
    }
    registered.set(resource, kind);
  }
}

/** A registered kind; throws for one no context has registered (its `store-resources.ts` was not imported). */
export function storeResource(resource: StoreResource): StoreResourceKind {
  const kind = registered.get(resource);
  if (!kind)
    throw new Error(
      `The store resource '${resource}' is not registered: import its context's store-resources.ts first`,
    );
  return kind;
}
