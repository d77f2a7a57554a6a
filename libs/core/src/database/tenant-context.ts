import type { EntityManager } from 'typeorm';
import type { UserPrincipal } from '../auth-context/principal.js';

/** The database role request transactions switch to: no BYPASSRLS, so row-level security applies. */
export const RLS_ROLE = 'storefront_rls';

/**
 * Binds the current transaction to a user: the RLS policies read `app.user_id` and `app.role`,
 * and `role` drops the connection's privileges to RLS_ROLE until the transaction ends.
 * One round trip; every setting is transaction-local (is_local = true).
 */
export async function enterTenantContext(manager: EntityManager, principal: Pick<UserPrincipal, 'userId' | 'role'>): Promise<void> {
  await manager.query(`SELECT set_config('app.user_id', $1, true), set_config('app.role', $2, true), set_config('role', $3, true)`, [
    principal.userId,
    principal.role,
    RLS_ROLE,
  ]);
}
