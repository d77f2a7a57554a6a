import type { QueryRunner } from 'typeorm';
import { REQUEST_ROLE, SYSTEM_ROLE } from './roles.js';

/** The search_path every SECURITY DEFINER function runs with: nothing a caller can shadow. */
export const DEFINER_SEARCH_PATH = 'SET search_path = pg_catalog, public, pg_temp';

/**
 * Hands a SECURITY DEFINER function a migration created to the system role, callable by the two
 * application roles only (docs/security.md). Grants first: once the system role owns it, the
 * migrating owner role (a NOINHERIT member) may no longer change it.
 */
export async function handOverDefiner(db: QueryRunner, signature: string): Promise<void> {
  await db.query(`ALTER FUNCTION ${signature} ${DEFINER_SEARCH_PATH}`);
  await db.query(`REVOKE ALL ON FUNCTION ${signature} FROM PUBLIC`);
  await db.query(`GRANT EXECUTE ON FUNCTION ${signature} TO ${REQUEST_ROLE}, ${SYSTEM_ROLE}`);
  await db.query(`ALTER FUNCTION ${signature} OWNER TO ${SYSTEM_ROLE}`);
}
