import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dropDefiners, handOverDefiner } from '../definer-functions.js';
import { PRIVATE_SCHEMA } from '../roles.js';

const SIGNATURE = 'app_authorize_request(uuid, text, uuid, text, uuid, boolean)';

/**
 * `app_authorize_request`: the guards' lookup (`app_authorize`) and the binding of the transaction
 * it runs in (as `app_bind_request` binds), in one statement. A request that runs in one
 * transaction opens it with this, sent together with `START TRANSACTION`: identity, store access
 * and the row-level-security context then cost the request one round trip to the database.
 * Outside a transaction the binding ends with the statement, as every local setting does.
 */
export class AuthorizeRequest1763801450000 implements MigrationInterface {
  name = 'AuthorizeRequest1763801450000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE FUNCTION app_authorize_request(p_session uuid, p_proof text, p_store uuid, p_resource text, p_record uuid, p_only_store boolean)
      RETURNS TABLE (user_id uuid, email text, role text, store_id uuid, relation text, permissions text[], record_owner uuid, store_count integer)
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      DECLARE
        facts record;
      BEGIN
        -- app_authorize cleans the pooled session first, so the context is set after it, never before.
        SELECT * INTO facts FROM app_authorize(p_session, p_proof, p_store, p_resource, p_record, p_only_store);
        IF NOT FOUND THEN
          RETURN;
        END IF;
        PERFORM set_config('app.user_id', facts.user_id::text, true), set_config('app.role', facts.role, true),
                set_config('app.session_id', p_session::text, true),
                set_config('app.context', ${PRIVATE_SCHEMA}.context_mac(facts.user_id::text, facts.role, p_session::text), true);
        RETURN QUERY SELECT facts.user_id, facts.email, facts.role, facts.store_id, facts.relation, facts.permissions,
                            facts.record_owner, facts.store_count;
      END $$`);
    await handOverDefiner(db, SIGNATURE);
  }

  async down(db: QueryRunner): Promise<void> {
    await dropDefiners(db, [SIGNATURE]);
  }
}
