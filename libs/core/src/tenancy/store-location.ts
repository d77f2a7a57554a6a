import type { FastifyRequest } from 'fastify';
import { isUUID } from 'class-validator';
import { storeResource, type StoreResource } from './store-resources.js';

/** Where a store-scoped route names its store (the rule's part the caller lookup needs; @StoreScoped sets it). */
export interface StoreLocation {
  /**
   * A path parameter, a body field or a query parameter, by name; or the store of the product,
   * customer, order… whose id is the path parameter (or body field) `key`.
   */
  from: 'param' | 'body' | 'query' | StoreResource;
  key?: string;
  /** For a record (`from: 'product'`…): whether its id is a path parameter (default) or a body field. */
  in?: 'param' | 'body';
  /** With `from: 'body'` or `'query'`: the store id may be left out when the caller has exactly one store. */
  optional?: boolean;
}

export const STORE_LOCATION_KEY = 'storefront:store-access';

/** What the caller lookup is asked about: a store, a record's store, or the caller's only store. */
export interface StoreReference {
  store: string | null;
  resource: StoreResource | null;
  record: string | null;
  onlyStore: boolean;
}

export type LocatedReference =
  { ok: true; key: string; reference: StoreReference } | { ok: false; key: string; message: string };

/**
 * Reads the store (or record) id a route names from the request; a malformed or missing one is reported, not looked up.
 */
export function locateStore(location: StoreLocation, request: FastifyRequest): LocatedReference {
  const resource =
    location.from === 'param' || location.from === 'body' || location.from === 'query' ? null : location.from;
  const key = location.key ?? (resource ? storeResource(resource).key : 'store_id');
  const place = resource ? (location.in ?? 'param') : location.from;
  const source = (place === 'body' ? request.body : place === 'query' ? request.query : request.params) as
    Record<string, unknown> | undefined;
  const id = source?.[key];
  if (id === undefined && location.optional && !resource) {
    return { ok: true, key, reference: { store: null, resource: null, record: null, onlyStore: true } };
  }
  if (typeof id !== 'string' || !isUUID(id)) return { ok: false, key, message: `${key} must be a UUID` };
  return {
    ok: true,
    key,
    reference: resource
      ? { store: null, resource, record: id, onlyStore: false }
      : { store: id, resource: null, record: null, onlyStore: false },
  };
}
