-- Users: a request reads itself (never the password hash); accounts are made and changed only
-- through these definer functions, each needing the API's ticket.

-- Applied after the migrations, with every lib's sql/ files, in one transaction (docs/architecture.md § The database).

-- SECURITY DEFINER functions belong to the system role (docs/security.md): made as it.
SET ROLE storefront_system;

-- Without e-mail confirmation: the bound user's address changes at once.
CREATE OR REPLACE FUNCTION auth_change_email(p_new_email text, p_ticket text) RETURNS TABLE(outcome text, old_email text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      #variable_conflict use_column
      
      DECLARE
        me uuid := app_user_id();
      BEGIN
        IF me IS NULL OR NOT storefront_private.ticket_valid('email-change-now', me::text || ':' || lower(p_new_email), p_ticket) THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        SELECT u.email INTO old_email FROM users u WHERE u.id = me FOR UPDATE;
        BEGIN
          UPDATE users SET email = p_new_email, new_email = NULL, email_change_sent_at = NULL, updated_at = now() WHERE id = me;
        EXCEPTION WHEN unique_violation THEN
          outcome := 'email_taken';
          RETURN NEXT;
          RETURN;
        END;
        DELETE FROM auth_one_time_tokens WHERE user_id = me AND kind = 'email_change';
        outcome := 'changed';
        RETURN NEXT;
      END $$;
REVOKE ALL ON FUNCTION auth_change_email(p_new_email text, p_ticket text) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION auth_change_email(p_new_email text, p_ticket text) TO storefront_rls;

-- A new account (never an admin), confirmed or not. An address already taken by an unconfirmed
-- account is given to this sign-up (its password replaced; a confirmation mail follows): only the
-- address's owner can confirm it, so whoever registered it first gains nothing.
CREATE OR REPLACE FUNCTION auth_create_user(p_email text, p_password_hash text, p_role text, p_full_name text, p_provider text, p_store uuid, p_confirmed boolean, p_ticket text) RETURNS TABLE(outcome text, user_id uuid)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      #variable_conflict use_column
      DECLARE
        existing record;
      BEGIN
        IF NOT storefront_private.ticket_valid('create-user', lower(p_email), p_ticket) THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        IF p_role NOT IN ('merchant', 'customer', 'team_member') THEN
          RAISE EXCEPTION 'no such role for a new account: %', p_role USING ERRCODE = '22023';
        END IF;
        IF p_role = 'customer' AND NOT EXISTS (SELECT 1 FROM stores s WHERE s.id = p_store) THEN
          outcome := 'unknown_store';
          RETURN NEXT;
          RETURN;
        END IF;
        INSERT INTO users (email, password_hash, role, full_name, provider, store_id, email_confirmed_at)
        VALUES (p_email, p_password_hash, p_role, p_full_name, p_provider, CASE WHEN p_role = 'customer' THEN p_store END,
                CASE WHEN p_confirmed THEN now() END)
        ON CONFLICT ((lower(email))) DO NOTHING
        RETURNING id INTO user_id;
        IF user_id IS NOT NULL THEN
          outcome := 'created';
          RETURN NEXT;
          RETURN;
        END IF;
        SELECT u.id, u.email_confirmed_at, u.role INTO existing FROM users u WHERE lower(u.email) = lower(p_email) FOR UPDATE;
        IF p_confirmed OR existing.email_confirmed_at IS NOT NULL OR existing.role = 'admin' THEN
          outcome := 'email_taken';
        ELSE
          UPDATE users SET password_hash = p_password_hash, full_name = coalesce(p_full_name, full_name), updated_at = now()
           WHERE id = existing.id;
          outcome := 'unconfirmed';
          user_id := existing.id;
        END IF;
        RETURN NEXT;
      END $$;
REVOKE ALL ON FUNCTION auth_create_user(p_email text, p_password_hash text, p_role text, p_full_name text, p_provider text, p_store uuid, p_confirmed boolean, p_ticket text) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION auth_create_user(p_email text, p_password_hash text, p_role text, p_full_name text, p_provider text, p_store uuid, p_confirmed boolean, p_ticket text) TO storefront_rls;

-- Google vouched for the address: its account, confirmed (made a merchant when new). A password
-- someone set on that address before is cleared and its sessions end: the address's owner keeps it.
CREATE OR REPLACE FUNCTION auth_google_account(p_email text, p_full_name text, p_ticket text) RETURNS uuid
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        account record;
        created uuid;
      BEGIN
        IF NOT storefront_private.ticket_valid('google', lower(p_email), p_ticket) THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        INSERT INTO users (email, password_hash, role, full_name, provider, email_confirmed_at)
        VALUES (p_email, NULL, 'merchant', p_full_name, 'google', now())
        ON CONFLICT ((lower(email))) DO NOTHING RETURNING id INTO created;
        IF created IS NOT NULL THEN
          RETURN created;
        END IF;
        SELECT u.id, u.password_hash INTO account FROM users u WHERE lower(u.email) = lower(p_email);
        UPDATE users SET email_confirmed_at = coalesce(email_confirmed_at, now()) WHERE id = account.id;
        IF account.password_hash IS NOT NULL THEN
          UPDATE users SET password_hash = NULL, updated_at = now() WHERE id = account.id;
          UPDATE auth_sessions SET revoked_at = now() WHERE user_id = account.id AND revoked_at IS NULL;
        END IF;
        RETURN account.id;
      END $$;
REVOKE ALL ON FUNCTION auth_google_account(p_email text, p_full_name text, p_ticket text) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION auth_google_account(p_email text, p_full_name text, p_ticket text) TO storefront_rls;

-- Only what a password check needs, and only with a ticket: an injected query cannot collect hashes.
CREATE OR REPLACE FUNCTION auth_password_candidate(p_email text, p_ticket text) RETURNS TABLE(user_id uuid, password_hash text, email_confirmed boolean)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      BEGIN
        IF NOT storefront_private.ticket_valid('sign-in', lower(p_email), p_ticket) THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        RETURN QUERY SELECT u.id, u.password_hash, u.email_confirmed_at IS NOT NULL FROM users u WHERE lower(u.email) = lower(p_email);
      END $$;
REVOKE ALL ON FUNCTION auth_password_candidate(p_email text, p_ticket text) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION auth_password_candidate(p_email text, p_ticket text) TO storefront_rls;

-- The bound user's new password; its other sessions end. Unless the API checked the current
-- password (p_recent_seconds null), the bound session must have signed in within p_recent_seconds.
CREATE OR REPLACE FUNCTION auth_set_password(p_password_hash text, p_recent_seconds integer, p_ticket text) RETURNS TABLE(outcome text, ended integer)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      #variable_conflict use_column
      
      DECLARE
        me uuid := app_user_id();
      BEGIN
        IF me IS NULL OR NOT storefront_private.ticket_valid('set-password', me::text, p_ticket) THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        IF p_recent_seconds IS NOT NULL AND NOT EXISTS (
             SELECT 1 FROM auth_sessions s WHERE s.id = app_session_id() AND s.created_at > now() - make_interval(secs => p_recent_seconds)) THEN
          outcome := 'reauthentication_needed';
          RETURN NEXT;
          RETURN;
        END IF;
        UPDATE users SET password_hash = p_password_hash, updated_at = now() WHERE id = me;
        UPDATE auth_sessions SET revoked_at = now() WHERE user_id = me AND id <> app_session_id() AND revoked_at IS NULL;
        GET DIAGNOSTICS ended = ROW_COUNT;
        DELETE FROM auth_one_time_tokens WHERE user_id = me AND kind = 'recovery';
        outcome := 'changed';
        RETURN NEXT;
      END $$;
REVOKE ALL ON FUNCTION auth_set_password(p_password_hash text, p_recent_seconds integer, p_ticket text) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION auth_set_password(p_password_hash text, p_recent_seconds integer, p_ticket text) TO storefront_rls;

RESET ROLE;

ALTER TABLE users ENABLE ROW LEVEL SECURITY;
ALTER TABLE users FORCE ROW LEVEL SECURITY;

REVOKE ALL ON TABLE users FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE users TO storefront_system;
GRANT SELECT (id, email, role, full_name, provider, store_id, created_at, updated_at, last_sign_in_at, email_confirmed_at, confirmation_sent_at, recovery_sent_at, new_email, email_change_sent_at, user_metadata) ON TABLE users TO storefront_rls;
GRANT UPDATE (full_name, updated_at, user_metadata) ON TABLE users TO storefront_rls;

DROP POLICY IF EXISTS users_self ON users;
CREATE POLICY users_self ON users FOR SELECT TO storefront_rls
  USING (id = (SELECT app_user_id()) OR (SELECT app_role()) = 'admin');

DROP POLICY IF EXISTS users_self_update ON users;
CREATE POLICY users_self_update ON users FOR UPDATE TO storefront_rls
  USING (id = (SELECT app_user_id()))
  WITH CHECK (id = (SELECT app_user_id()));

DROP POLICY IF EXISTS users_system ON users;
CREATE POLICY users_system ON users TO storefront_system
  USING (true)
  WITH CHECK (true);
