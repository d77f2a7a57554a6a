-- PKCE flow states: nothing for requests; awaited, issued and exchanged through the definers.

-- Applied after the migrations, with every lib's sql/ files, in one transaction (docs/architecture.md § The database).

-- SECURITY DEFINER functions belong to the system role (docs/security.md): made as it.
SET ROLE storefront_system;

-- A PKCE challenge waiting for the e-mailed link of that token (issued in the same transaction).
-- Expired flows are tidied here, an hour after their end.
CREATE OR REPLACE FUNCTION auth_flow_await_link(p_link_hash bytea, p_kind text, p_challenge text, p_method text, p_ttl_seconds integer, p_ticket text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      BEGIN
        IF NOT storefront_private.ticket_valid('flow-link', encode(p_link_hash, 'hex'), p_ticket) THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        DELETE FROM auth_flow_states WHERE expires_at < now() - interval '1 hour';
        INSERT INTO auth_flow_states (link_hash, authentication_method, code_challenge, code_challenge_method,
                                      expires_at)
        VALUES (p_link_hash, p_kind, p_challenge, p_method, now() + make_interval(secs => p_ttl_seconds));
      END $$;
REVOKE ALL ON FUNCTION auth_flow_await_link(p_link_hash bytea, p_kind text, p_challenge text, p_method text, p_ttl_seconds integer, p_ticket text) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION auth_flow_await_link(p_link_hash bytea, p_kind text, p_challenge text, p_method text, p_ttl_seconds integer, p_ticket text) TO storefront_rls;

-- The exchange: the auth code with the verifier of its challenge, once. The code and verifier are
-- the proof (no ticket). A wrong verifier leaves the code to its owner; an expired one is refused.
CREATE OR REPLACE FUNCTION auth_flow_exchange(p_code_hash bytea, p_verifier text) RETURNS TABLE(outcome text, user_id uuid, kind text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      #variable_conflict use_column
      DECLARE
        flow record;
        proof text;
      BEGIN
        SELECT f.id, f.user_id, f.authentication_method, f.code_challenge, f.code_challenge_method, f.expires_at
          INTO flow
          FROM auth_flow_states f WHERE f.auth_code_hash = p_code_hash FOR UPDATE;
        IF NOT FOUND THEN
          outcome := 'not_found';
          RETURN NEXT;
          RETURN;
        END IF;
        IF flow.expires_at <= now() THEN
          outcome := 'expired';
          RETURN NEXT;
          RETURN;
        END IF;
        proof := CASE flow.code_challenge_method WHEN 's256' THEN translate(rtrim(encode(sha256(convert_to(p_verifier, 'UTF8')), 'base64'), '='), '+/', '-_') ELSE p_verifier END;
        IF proof IS NULL OR proof IS DISTINCT FROM flow.code_challenge THEN
          outcome := 'bad_verifier';
          RETURN NEXT;
          RETURN;
        END IF;
        DELETE FROM auth_flow_states WHERE id = flow.id;
        outcome := 'exchanged';
        user_id := flow.user_id;
        kind := flow.authentication_method;
        RETURN NEXT;
      END $$;
REVOKE ALL ON FUNCTION auth_flow_exchange(p_code_hash bytea, p_verifier text) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION auth_flow_exchange(p_code_hash bytea, p_verifier text) TO storefront_rls;

-- The user the API has just proven (by the link of p_link_hash, or by Google) gets an auth code:
-- for the challenge waiting for that link (false when none waits: the implicit flow), or for the
-- challenge given (Google, p_link_hash null). The code lives p_ttl_seconds.
CREATE OR REPLACE FUNCTION auth_flow_issue_code(p_link_hash bytea, p_user uuid, p_kind text, p_challenge text, p_method text, p_code_hash bytea, p_ttl_seconds integer, p_ticket text) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      BEGIN
        IF NOT storefront_private.ticket_valid('flow-code', p_user::text, p_ticket) THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        IF p_link_hash IS NOT NULL THEN
          UPDATE auth_flow_states
             SET link_hash = NULL, auth_code_hash = p_code_hash, user_id = p_user, created_at = now(),
                 expires_at = now() + make_interval(secs => p_ttl_seconds)
           WHERE link_hash = p_link_hash AND expires_at > now();
          RETURN FOUND;
        END IF;
        INSERT INTO auth_flow_states (auth_code_hash, user_id, authentication_method, code_challenge,
                                      code_challenge_method, expires_at)
        VALUES (p_code_hash, p_user, p_kind, p_challenge, p_method, now() + make_interval(secs => p_ttl_seconds));
        RETURN true;
      END $$;
REVOKE ALL ON FUNCTION auth_flow_issue_code(p_link_hash bytea, p_user uuid, p_kind text, p_challenge text, p_method text, p_code_hash bytea, p_ttl_seconds integer, p_ticket text) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION auth_flow_issue_code(p_link_hash bytea, p_user uuid, p_kind text, p_challenge text, p_method text, p_code_hash bytea, p_ttl_seconds integer, p_ticket text) TO storefront_rls;

RESET ROLE;

ALTER TABLE auth_flow_states ENABLE ROW LEVEL SECURITY;
ALTER TABLE auth_flow_states FORCE ROW LEVEL SECURITY;

REVOKE ALL ON TABLE auth_flow_states FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE auth_flow_states TO storefront_system;

DROP POLICY IF EXISTS auth_flow_states_system ON auth_flow_states;
CREATE POLICY auth_flow_states_system ON auth_flow_states TO storefront_system
  USING (true)
  WITH CHECK (true);
