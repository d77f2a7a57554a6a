import type { QueryRunner } from 'typeorm';

/**
 * The database roles (docs/security.md). None is a superuser; none but the administrative login used
 * at start-up may create roles.
 *
 * - OWNER_ROLE owns the schema and runs the migrations; it logs in only through the start-up
 *   connection (`SET ROLE`), and row-level security is forced on it too.
 * - REQUEST_ROLE holds what requests may do; the request login (DATABASE_REQUEST_URL) is its only
 *   member. It owns nothing and cannot bypass row-level security: every row it sees passes a policy
 *   that reads the request context `app_bind_request` recorded.
 * - SYSTEM_ROLE holds what the workers do (relay, deliveries, publishing, sweeps) and owns the narrow
 *   SECURITY DEFINER functions requests may call; its rows are granted by policies of its own, not
 *   by BYPASSRLS. The service login (DATABASE_SERVICE_URL) is its member.
 */
export const OWNER_ROLE = 'storefront_owner';
export const REQUEST_ROLE = 'storefront_rls';
export const SYSTEM_ROLE = 'storefront_system';

/** Tables only the system and the definer functions reach: not granted to requests in any form. */
export const PRIVATE_SCHEMA = 'storefront_private';

/**
 * Runs a migration's data step as the system role. Migrations run as OWNER_ROLE, on which row-level
 * security is forced with no policy of its own: as the owner, a statement that reads or writes rows
 * sees none (the owner is a member of the system role, so it may switch).
 */
export async function asSystemRole<T>(db: QueryRunner, work: () => Promise<T>): Promise<T> {
  await db.query(`SET ROLE ${SYSTEM_ROLE}`);
  try {
    return await work();
  } finally {
    await db.query('RESET ROLE');
  }
}
