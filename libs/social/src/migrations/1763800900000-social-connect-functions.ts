import type { MigrationInterface, QueryRunner } from 'typeorm';
import { DEFINER_SEARCH_PATH as SAFE_PATH, handOverDefiner, REQUEST_ROLE, SYSTEM_ROLE } from '@app/core';

/** The stored form of a secret a browser or the callback presents: its SHA-256, hex. */
const HASHED = (parameter: string) => `encode(sha256(convert_to(${parameter}, 'UTF8')), 'hex')`;

const FUNCTIONS = [
  'app_start_connect(text, text)',
  'app_take_connect_state(text, text, text)',
  'app_complete_connect(text, text, text, text, text, text, text, timestamptz, text[])',
];

/**
 * The social-connect start and callback without the system role (docs/security.md, "Social
 * connect"). The browser that opens `auth_url` and later comes back from the platform carries no
 * user, so the state alone says whose store this is; three narrow definer functions, callable by the
 * request role outside any request context, do exactly what those two routes need:
 *
 * - `app_start_connect(state_hash, browser_secret)`: the first browser to open the start URL binds the
 *   state to itself (the hash of a secret it keeps in a cookie); a second open is refused.
 * - `app_take_connect_state(state_hash, browser_secret, completion)`: the callback takes the state once,
 *   whatever happens: only the browser that started it, before it expires, gets the row (and may then
 *   complete it with `completion`, a secret of its choosing stored as a hash); anything else deletes
 *   the state. Without a `completion` (the platform sent an error), the state is deleted. Expired states
 *   over an hour old are cleared on the way.
 * - `app_complete_connect(state_hash, completion, account…)`: attaches the platform account to the store
 *   and platform of the taken state, within 10 minutes of the take, once (the state is deleted).
 *
 * Runs after LeastPrivilege1763800800000 (by timestamp), so it revokes, grants and hands its functions
 * to the system role itself; the request role's insert is narrowed to the columns a new state has.
 */
export class SocialConnectFunctions1763800900000 implements MigrationInterface {
  name = 'SocialConnectFunctions1763800900000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE social_connect_states
        ADD COLUMN browser_hash text,
        ADD COLUMN started_at timestamptz,
        ADD COLUMN taken_at timestamptz,
        ADD COLUMN completion_hash text,
        -- A state lives its 10 minutes (a little more for clocks apart), never as long as a request likes.
        ADD CONSTRAINT social_connect_states_lifetime CHECK (expires_at <= created_at + interval '15 minutes')`);
    // A request writes a new state only: never its browser, take or completion.
    await db.query(`REVOKE INSERT ON social_connect_states FROM ${REQUEST_ROLE}`);
    await db.query(
      `GRANT INSERT (state_hash, store_id, user_id, platform, redirect_url, code_verifier_sealed, expires_at)
         ON social_connect_states TO ${REQUEST_ROLE}`,
    );

    await db.query(`
      CREATE FUNCTION app_start_connect(p_state_hash text, p_browser_secret text)
      RETURNS TABLE (outcome text, platform text, redirect_url text, code_verifier_sealed text, expires_at timestamptz)
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER ${SAFE_PATH} AS $$
      DECLARE
        found_state record;
      BEGIN
        IF p_state_hash IS NULL OR p_browser_secret IS NULL OR length(p_browser_secret) < 32 THEN
          RETURN;
        END IF;
        SELECT s.platform, s.redirect_url, s.code_verifier_sealed, s.expires_at, s.browser_hash INTO found_state
          FROM social_connect_states s
         WHERE s.state_hash = p_state_hash AND s.taken_at IS NULL
           FOR UPDATE;
        IF NOT FOUND THEN
          RETURN;
        END IF;
        platform := found_state.platform;
        redirect_url := found_state.redirect_url;
        expires_at := found_state.expires_at;
        IF found_state.browser_hash IS NOT NULL THEN
          outcome := 'already_started';
        ELSIF found_state.expires_at <= now() THEN
          outcome := 'expired';
        ELSE
          UPDATE social_connect_states s SET browser_hash = ${HASHED('p_browser_secret')}, started_at = now()
           WHERE s.state_hash = p_state_hash;
          outcome := 'started';
          code_verifier_sealed := found_state.code_verifier_sealed;
        END IF;
        RETURN NEXT;
      END $$`);

    await db.query(`
      CREATE FUNCTION app_take_connect_state(p_state_hash text, p_browser_secret text, p_completion text)
      RETURNS TABLE (outcome text, store_id uuid, user_id uuid, platform text, redirect_url text, code_verifier_sealed text,
                     expires_at timestamptz)
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER ${SAFE_PATH} AS $$
      DECLARE
        found_state record;
      BEGIN
        -- Expired states are of no use to anyone: each callback clears them (taken ones too).
        DELETE FROM social_connect_states s WHERE s.expires_at < now() - interval '1 hour';
        IF p_state_hash IS NULL OR (p_completion IS NOT NULL AND length(p_completion) < 32) THEN
          RETURN;
        END IF;
        SELECT s.store_id, s.user_id, s.platform, s.redirect_url, s.code_verifier_sealed, s.expires_at, s.browser_hash INTO found_state
          FROM social_connect_states s
         WHERE s.state_hash = p_state_hash AND s.taken_at IS NULL
           FOR UPDATE;
        IF NOT FOUND THEN
          RETURN;
        END IF;
        platform := found_state.platform;
        redirect_url := found_state.redirect_url;
        expires_at := found_state.expires_at;
        IF found_state.browser_hash IS NULL OR p_browser_secret IS NULL
           OR sha256(convert_to(found_state.browser_hash, 'UTF8')) <> sha256(convert_to(${HASHED('p_browser_secret')}, 'UTF8')) THEN
          outcome := 'browser_mismatch';
        ELSIF found_state.expires_at <= now() THEN
          outcome := 'expired';
        ELSIF p_completion IS NULL THEN
          outcome := 'spent';
        ELSE
          UPDATE social_connect_states s SET taken_at = now(), completion_hash = ${HASHED('p_completion')}
           WHERE s.state_hash = p_state_hash;
          outcome := 'taken';
          store_id := found_state.store_id;
          user_id := found_state.user_id;
          code_verifier_sealed := found_state.code_verifier_sealed;
          RETURN NEXT;
          RETURN;
        END IF;
        -- Single use: a state that is not taken for completion is gone.
        DELETE FROM social_connect_states s WHERE s.state_hash = p_state_hash;
        RETURN NEXT;
      END $$`);

    await db.query(`
      CREATE FUNCTION app_complete_connect(
        p_state_hash text, p_completion text, p_platform_account_id text, p_username text, p_display_name text,
        p_access_token_sealed text, p_refresh_token_sealed text, p_token_expires_at timestamptz, p_scopes text[])
      RETURNS uuid
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER ${SAFE_PATH} AS $$
      DECLARE
        taken record;
        account uuid;
      BEGIN
        IF p_state_hash IS NULL OR p_completion IS NULL THEN
          RETURN NULL;
        END IF;
        DELETE FROM social_connect_states s
         WHERE s.state_hash = p_state_hash
           AND s.taken_at > now() - interval '10 minutes'
           AND s.completion_hash IS NOT NULL
           AND sha256(convert_to(s.completion_hash, 'UTF8')) = sha256(convert_to(${HASHED('p_completion')}, 'UTF8'))
        RETURNING s.store_id, s.platform, s.user_id INTO taken;
        IF NOT FOUND THEN
          RETURN NULL;
        END IF;
        -- Connecting a platform again replaces the store's account for it (new tokens, active again).
        INSERT INTO social_accounts AS a (store_id, platform, platform_account_id, username, display_name,
                access_token_sealed, refresh_token_sealed, token_expires_at, scopes, connected_by)
        VALUES (taken.store_id, taken.platform, p_platform_account_id, p_username, p_display_name,
                p_access_token_sealed, p_refresh_token_sealed, p_token_expires_at, coalesce(p_scopes, '{}'), taken.user_id)
        ON CONFLICT (store_id, platform) DO UPDATE SET
          platform_account_id = excluded.platform_account_id, username = excluded.username, display_name = excluded.display_name,
          access_token_sealed = excluded.access_token_sealed, refresh_token_sealed = excluded.refresh_token_sealed,
          token_expires_at = excluded.token_expires_at, scopes = excluded.scopes, connected_by = excluded.connected_by,
          status = 'active', updated_at = date_trunc('milliseconds', clock_timestamp())
        RETURNING a.id INTO account;
        RETURN account;
      END $$`);

    // Callable by requests and the system only, then handed to the system role (whose policies give it
    // the rows), after which the owner cannot change them.
    for (const fn of FUNCTIONS) await handOverDefiner(db, fn);
  }

  async down(db: QueryRunner): Promise<void> {
    // The functions belong to the system role: only it may drop them.
    await db.query(`SET ROLE ${SYSTEM_ROLE}`);
    try {
      for (const fn of FUNCTIONS) await db.query(`DROP FUNCTION ${fn}`);
    } finally {
      await db.query(`RESET ROLE`);
    }
    await db.query(`REVOKE INSERT ON social_connect_states FROM ${REQUEST_ROLE}`);
    await db.query(`GRANT INSERT ON social_connect_states TO ${REQUEST_ROLE}`);
    await db.query(
      `ALTER TABLE social_connect_states DROP CONSTRAINT social_connect_states_lifetime, DROP COLUMN browser_hash, DROP COLUMN started_at, DROP COLUMN taken_at, DROP COLUMN completion_hash`,
    );
  }
}
