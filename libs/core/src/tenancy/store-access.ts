import type { StoreRelation } from './caller-lookup.js';

/** What a team member may be allowed to do in a store (docs/api.md § Callers, roles and permissions). */
export const PERMISSIONS = ['catalog', 'orders', 'customers', 'ai', 'social', 'webhooks', 'billing'] as const;
export type Permission = (typeof PERMISSIONS)[number];

export interface StoreAccess {
  storeId: string;
  relation: StoreRelation;
  /** A member's permissions; owners and admins hold all of them, customers none. */
  permissions: readonly Permission[];
}

declare module 'fastify' {
  interface FastifyRequest {
    storeAccess?: StoreAccess;
  }
}
