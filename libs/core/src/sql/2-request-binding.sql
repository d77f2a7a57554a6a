-- Who a request transaction is. app_bind_request (a user's session) and app_bind_api_key (a store key)
-- check a proof only the API can make, then record the caller with a MAC over this backend and this
-- transaction; app_user_id(), app_role(), app_api_key_id() and app_actor() answer only while it verifies.

-- Applied after the migrations, with every lib's sql/ files, in one transaction (docs/architecture.md § The database).

-- SECURITY DEFINER functions belong to the system role (docs/security.md): made as it.
SET ROLE storefront_system;

-- Who acts in the bound transaction: a user, a store key, or nobody (the system).
CREATE OR REPLACE FUNCTION app_actor() RETURNS jsonb
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        me uuid := app_user_id();
      BEGIN
        IF me IS NOT NULL THEN
          RETURN jsonb_build_object('type', 'user', 'id', me);
        END IF;
        IF storefront_private.api_key_context_valid() THEN
          RETURN jsonb_build_object('type', 'api_key', 'id', current_setting('app.api_key_id', true));
        END IF;
        RETURN NULL;
      END $$;
REVOKE ALL ON FUNCTION app_actor() FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_actor() TO storefront_rls;

CREATE OR REPLACE FUNCTION app_api_key_id() RETURNS uuid
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      BEGIN
        RETURN CASE WHEN storefront_private.api_key_context_valid() THEN current_setting('app.api_key_id', true)::uuid END;
      END $$;
REVOKE ALL ON FUNCTION app_api_key_id() FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_api_key_id() TO storefront_rls;

-- Binding a later transaction of the same request: the key's id with the API's proof (as sessions are bound).
CREATE OR REPLACE FUNCTION app_bind_api_key(p_key uuid, p_proof text) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        k record;
      BEGIN
        PERFORM storefront_private.clean_session();
        SELECT a.id, a.store_id, a.permissions INTO k FROM store_api_keys a
         WHERE a.id = p_key AND a.revoked_at IS NULL AND (a.expires_at IS NULL OR a.expires_at > now()) AND p_proof IS NOT NULL
           AND sha256(convert_to(p_proof, 'UTF8'))
             = sha256(convert_to(encode(storefront_private.hmac('api_key:' || p_key::text), 'hex'), 'UTF8'));
        IF NOT FOUND THEN
          RETURN false;
        END IF;
        
  PERFORM set_config('app.api_key_id', k.id::text, true), set_config('app.api_key_store', k.store_id::text, true),
          set_config('app.api_key_permissions', array_to_string(k.permissions, ','), true),
          set_config('app.api_key_context', storefront_private.api_key_context_mac(
                       k.id::text, k.store_id::text, array_to_string(k.permissions, ',')), true);
        RETURN true;
      END $$;
REVOKE ALL ON FUNCTION app_bind_api_key(p_key uuid, p_proof text) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_bind_api_key(p_key uuid, p_proof text) TO storefront_rls;

-- The binding of a request transaction: verifies the session and records who it is.
CREATE OR REPLACE FUNCTION app_bind_request(p_session uuid, p_proof text) RETURNS TABLE(user_id uuid, email text, role text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        found_user record;
      BEGIN
        PERFORM storefront_private.clean_session();
        SELECT u.id, u.email, u.role INTO found_user FROM storefront_private.user_of_session(p_session, p_proof) u;
        IF NOT FOUND THEN
          RETURN;
        END IF;
        PERFORM set_config('app.user_id', found_user.id::text, true), set_config('app.role', found_user.role, true),
                set_config('app.session_id', p_session::text, true),
                set_config('app.context', storefront_private.context_mac(found_user.id::text, found_user.role, p_session::text), true);
        user_id := found_user.id;
        email := found_user.email;
        role := found_user.role;
        RETURN NEXT;
      END $$;
REVOKE ALL ON FUNCTION app_bind_request(p_session uuid, p_proof text) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_bind_request(p_session uuid, p_proof text) TO storefront_rls;

-- The bound user, or null: the settings count only while their MAC verifies (hashes compared, so
-- the comparison's time says nothing about the expected value).
CREATE OR REPLACE FUNCTION app_context_valid() RETURNS boolean
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        context text := current_setting('app.context', true);
      BEGIN
        IF context IS NULL OR context = '' THEN
          RETURN false;
        END IF;
        RETURN sha256(convert_to(context, 'UTF8'))
             = sha256(convert_to(storefront_private.context_mac(current_setting('app.user_id', true), current_setting('app.role', true),
                                                              current_setting('app.session_id', true)), 'UTF8'));
      END $$;
REVOKE ALL ON FUNCTION app_context_valid() FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_context_valid() TO storefront_rls;

CREATE OR REPLACE FUNCTION app_role() RETURNS text
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      BEGIN
        RETURN CASE WHEN app_context_valid() THEN current_setting('app.role', true) ELSE 'none' END;
      END $$;
REVOKE ALL ON FUNCTION app_role() FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_role() TO storefront_rls;

CREATE OR REPLACE FUNCTION app_session_id() RETURNS uuid
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      BEGIN
        RETURN CASE WHEN app_context_valid() THEN current_setting('app.session_id', true)::uuid END;
      END $$;
REVOKE ALL ON FUNCTION app_session_id() FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_session_id() TO storefront_rls;

CREATE OR REPLACE FUNCTION app_user_id() RETURNS uuid
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      BEGIN
        RETURN CASE WHEN app_context_valid() THEN current_setting('app.user_id', true)::uuid END;
      END $$;
REVOKE ALL ON FUNCTION app_user_id() FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_user_id() TO storefront_rls;

RESET ROLE;

-- The key context's MAC: another domain than a session's context, so neither passes for the other.
CREATE OR REPLACE FUNCTION storefront_private.api_key_context_mac(p_key text, p_store text, p_permissions text) RETURNS text
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      BEGIN
        RETURN encode(storefront_private.hmac(concat_ws(':', 'api-key-context', pg_backend_pid(),
                      extract(epoch FROM transaction_timestamp()), p_key, p_store, p_permissions)), 'hex');
      END $$;
REVOKE ALL ON FUNCTION storefront_private.api_key_context_mac(p_key text, p_store text, p_permissions text) FROM PUBLIC, storefront_rls, storefront_system;
GRANT EXECUTE ON FUNCTION storefront_private.api_key_context_mac(p_key text, p_store text, p_permissions text) TO storefront_system;

CREATE OR REPLACE FUNCTION storefront_private.api_key_context_valid() RETURNS boolean
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        context text := current_setting('app.api_key_context', true);
      BEGIN
        IF context IS NULL OR context = '' THEN
          RETURN false;
        END IF;
        RETURN sha256(convert_to(context, 'UTF8'))
             = sha256(convert_to(storefront_private.api_key_context_mac(
                 current_setting('app.api_key_id', true), current_setting('app.api_key_store', true),
                 current_setting('app.api_key_permissions', true)), 'UTF8'));
      END $$;
REVOKE ALL ON FUNCTION storefront_private.api_key_context_valid() FROM PUBLIC, storefront_rls, storefront_system;
GRANT EXECUTE ON FUNCTION storefront_private.api_key_context_valid() TO storefront_system;

-- Request connections are pooled: whatever a request left on its session (settings made with a plain
-- SET, advisory locks) is undone before the next one binds or looks up, so it cannot reach another's.
CREATE OR REPLACE FUNCTION storefront_private.clean_session() RETURNS void
    LANGUAGE plpgsql
    AS $$
      BEGIN
        RESET ALL;
        PERFORM pg_advisory_unlock_all();
      END $$;
REVOKE ALL ON FUNCTION storefront_private.clean_session() FROM PUBLIC, storefront_rls, storefront_system;
GRANT EXECUTE ON FUNCTION storefront_private.clean_session() TO storefront_system;

-- What the context MAC covers: this backend, this transaction (its start), the user, role and session.
CREATE OR REPLACE FUNCTION storefront_private.context_mac(p_user text, p_role text, p_session text) RETURNS text
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      BEGIN
        RETURN encode(storefront_private.hmac(concat_ws(':', 'context', pg_backend_pid(), extract(epoch FROM transaction_timestamp()),
                                                       p_user, p_role, p_session)), 'hex');
      END $$;
REVOKE ALL ON FUNCTION storefront_private.context_mac(p_user text, p_role text, p_session text) FROM PUBLIC, storefront_rls, storefront_system;
GRANT EXECUTE ON FUNCTION storefront_private.context_mac(p_user text, p_role text, p_session text) TO storefront_system;

-- HMAC-SHA256 under the installation key (its pads are stored, so plain sha256 suffices). The hot
-- helpers below are PL/pgSQL: their plans are kept for the session, where a SQL function with its
-- own search_path would be planned again at every call, in every policy of every statement.
CREATE OR REPLACE FUNCTION storefront_private.hmac(p_message text) RETURNS bytea
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        mac bytea;
      BEGIN
        SELECT sha256(i.binding_opad || sha256(i.binding_ipad || convert_to(p_message, 'UTF8'))) INTO mac FROM storefront_private.installation i;
        RETURN mac;
      END $$;
REVOKE ALL ON FUNCTION storefront_private.hmac(p_message text) FROM PUBLIC, storefront_rls, storefront_system;
GRANT EXECUTE ON FUNCTION storefront_private.hmac(p_message text) TO storefront_system;

CREATE OR REPLACE FUNCTION storefront_private.ticket_valid(p_purpose text, p_subject text, p_ticket text) RETURNS boolean
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
        -- False, never unknown: a caller's `IF NOT ticket_valid(…)` must refuse a missing subject or ticket.
        SELECT coalesce(
          p_ticket ~ '^[0-9]{13}[.][0-9a-f]{64}$'
           AND abs(extract(epoch FROM clock_timestamp()) * 1000 - split_part(p_ticket, '.', 1)::numeric) < 60000
           AND sha256(convert_to(split_part(p_ticket, '.', 2), 'UTF8'))
             = sha256(convert_to(encode(storefront_private.hmac(p_purpose || ':' || p_subject || ':' || split_part(p_ticket, '.', 1)), 'hex'), 'UTF8')),
          false)
      $_$;
REVOKE ALL ON FUNCTION storefront_private.ticket_valid(p_purpose text, p_subject text, p_ticket text) FROM PUBLIC, storefront_rls, storefront_system;
GRANT EXECUTE ON FUNCTION storefront_private.ticket_valid(p_purpose text, p_subject text, p_ticket text) TO storefront_system;

-- The user of an open session, when the proof (the HMAC of its id) is right; nothing otherwise.
CREATE OR REPLACE FUNCTION storefront_private.user_of_session(p_session uuid, p_proof text) RETURNS TABLE(id uuid, email text, role text, store_id uuid)
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
        SELECT u.id, u.email, u.role, u.store_id
          FROM auth_sessions s JOIN users u ON u.id = s.user_id
         WHERE s.id = p_session AND s.revoked_at IS NULL
           AND s.created_at > now() - (SELECT i.session_max_age FROM storefront_private.installation i)
           AND p_proof IS NOT NULL
           AND sha256(convert_to(p_proof, 'UTF8')) = sha256(convert_to(encode(storefront_private.hmac('session:' || p_session::text), 'hex'), 'UTF8'))
      $$;
REVOKE ALL ON FUNCTION storefront_private.user_of_session(p_session uuid, p_proof text) FROM PUBLIC, storefront_rls, storefront_system;
GRANT EXECUTE ON FUNCTION storefront_private.user_of_session(p_session uuid, p_proof text) TO storefront_system;
