-- Social accounts and the connect flow's states: staff holding `social`; a state is taken only
-- through the connect functions.

-- Applied after the migrations, with every lib's sql/ files, in one transaction (docs/architecture.md § The database).

-- SECURITY DEFINER functions belong to the system role (docs/security.md): made as it.
SET ROLE storefront_system;

CREATE OR REPLACE FUNCTION app_complete_connect(p_state_hash text, p_completion text, p_platform_account_id text, p_username text, p_display_name text, p_access_token_sealed text, p_refresh_token_sealed text, p_token_expires_at timestamp with time zone, p_scopes text[]) RETURNS uuid
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
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
           AND sha256(convert_to(s.completion_hash, 'UTF8')) = sha256(convert_to(encode(sha256(convert_to(p_completion, 'UTF8')), 'hex'), 'UTF8'))
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
      END $$;
REVOKE ALL ON FUNCTION app_complete_connect(p_state_hash text, p_completion text, p_platform_account_id text, p_username text, p_display_name text, p_access_token_sealed text, p_refresh_token_sealed text, p_token_expires_at timestamp with time zone, p_scopes text[]) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_complete_connect(p_state_hash text, p_completion text, p_platform_account_id text, p_username text, p_display_name text, p_access_token_sealed text, p_refresh_token_sealed text, p_token_expires_at timestamp with time zone, p_scopes text[]) TO storefront_rls;

CREATE OR REPLACE FUNCTION app_start_connect(p_state_hash text, p_browser_secret text) RETURNS TABLE(outcome text, platform text, redirect_url text, code_verifier_sealed text, expires_at timestamp with time zone)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
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
          UPDATE social_connect_states s SET browser_hash = encode(sha256(convert_to(p_browser_secret, 'UTF8')), 'hex'), started_at = now()
           WHERE s.state_hash = p_state_hash;
          outcome := 'started';
          code_verifier_sealed := found_state.code_verifier_sealed;
        END IF;
        RETURN NEXT;
      END $$;
REVOKE ALL ON FUNCTION app_start_connect(p_state_hash text, p_browser_secret text) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_start_connect(p_state_hash text, p_browser_secret text) TO storefront_rls;

CREATE OR REPLACE FUNCTION app_take_connect_state(p_state_hash text, p_browser_secret text, p_completion text) RETURNS TABLE(outcome text, store_id uuid, user_id uuid, platform text, redirect_url text, code_verifier_sealed text, expires_at timestamp with time zone)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
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
           OR sha256(convert_to(found_state.browser_hash, 'UTF8')) <> sha256(convert_to(encode(sha256(convert_to(p_browser_secret, 'UTF8')), 'hex'), 'UTF8')) THEN
          outcome := 'browser_mismatch';
        ELSIF found_state.expires_at <= now() THEN
          outcome := 'expired';
        ELSIF p_completion IS NULL THEN
          outcome := 'spent';
        ELSE
          UPDATE social_connect_states s SET taken_at = now(), completion_hash = encode(sha256(convert_to(p_completion, 'UTF8')), 'hex')
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
      END $$;
REVOKE ALL ON FUNCTION app_take_connect_state(p_state_hash text, p_browser_secret text, p_completion text) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_take_connect_state(p_state_hash text, p_browser_secret text, p_completion text) TO storefront_rls;

RESET ROLE;

ALTER TABLE social_connect_states ENABLE ROW LEVEL SECURITY;
ALTER TABLE social_connect_states FORCE ROW LEVEL SECURITY;
ALTER TABLE social_accounts ENABLE ROW LEVEL SECURITY;
ALTER TABLE social_accounts FORCE ROW LEVEL SECURITY;

REVOKE ALL ON TABLE social_accounts FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE social_accounts TO storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE social_accounts TO storefront_rls;

REVOKE ALL ON TABLE social_connect_states FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE social_connect_states TO storefront_system;
GRANT INSERT (state_hash, store_id, user_id, platform, redirect_url, code_verifier_sealed, expires_at) ON TABLE social_connect_states TO storefront_rls;

DROP POLICY IF EXISTS social_accounts_manage ON social_accounts;
CREATE POLICY social_accounts_manage ON social_accounts TO storefront_rls
  USING ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_store_ids_with('social'))::uuid[]))
  WITH CHECK (
    (SELECT app_role()) = 'admin'
    OR store_id = ANY ((SELECT app_store_ids_with('social'))::uuid[])
  );

DROP POLICY IF EXISTS social_accounts_system ON social_accounts;
CREATE POLICY social_accounts_system ON social_accounts TO storefront_system
  USING (true)
  WITH CHECK (true);

DROP POLICY IF EXISTS social_connect_states_create ON social_connect_states;
CREATE POLICY social_connect_states_create ON social_connect_states FOR INSERT TO storefront_rls
  WITH CHECK (
    ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_store_ids_with('social'))::uuid[]))
    AND user_id = (SELECT app_user_id())
  );

DROP POLICY IF EXISTS social_connect_states_system ON social_connect_states;
CREATE POLICY social_connect_states_system ON social_connect_states TO storefront_system
  USING (true)
  WITH CHECK (true);
