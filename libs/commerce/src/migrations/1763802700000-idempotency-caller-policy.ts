import type { MigrationInterface, QueryRunner } from 'typeorm';
import { REQUEST_ROLE } from '@app/core';

const ME = `(SELECT app_user_id())`;
const KEY = `(SELECT app_api_key_id())`;
/** What the policy allowed before: the row's user is the bound user or the bound store key. */
const BY_USER_ID = `(user_id = ${ME} OR user_id = ${KEY})`;
/** And now its caller too: a user's keys are `user:<id>`, a store key's `api_key:<id>`, never another's. */
const BY_CALLER = `((user_id = ${ME} AND caller = 'user:' || ${ME})
  OR (user_id = ${KEY} AND caller = 'api_key:' || ${KEY}))`;
/** The columns a claim's take-over and a kept answer write; never the row's caller, user or key. */
const UPDATABLE = 'route, fingerprint, state, response_status, response_headers, response_body, created_at';

/**
 * Idempotency keys are keyed by (caller, key), so a row's `caller` must be its own: the policy binds it
 * to the bound user or store key, as it binds `user_id`, and the request role may no longer rewrite the
 * caller, user or key of a row it holds. Otherwise a request could write a row under another caller's
 * name and stand in the way of that caller's key.
 */
export class IdempotencyCallerPolicy1763802700000 implements MigrationInterface {
  name = 'IdempotencyCallerPolicy1763802700000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER POLICY idempotency_keys_own ON idempotency_keys USING ${BY_CALLER} WITH CHECK ${BY_CALLER}`);
    await db.query(`REVOKE UPDATE ON idempotency_keys FROM ${REQUEST_ROLE}`);
    await db.query(`GRANT UPDATE (${UPDATABLE}) ON idempotency_keys TO ${REQUEST_ROLE}`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`REVOKE UPDATE (${UPDATABLE}) ON idempotency_keys FROM ${REQUEST_ROLE}`);
    await db.query(`GRANT UPDATE ON idempotency_keys TO ${REQUEST_ROLE}`);
    await db.query(`ALTER POLICY idempotency_keys_own ON idempotency_keys
      USING ${BY_USER_ID} WITH CHECK ${BY_USER_ID}`);
  }
}
