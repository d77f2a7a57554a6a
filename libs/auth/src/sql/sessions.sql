-- Sessions and refresh tokens: nothing for requests; opened, rotated and ended through the definers.

-- Applied after the migrations, with every lib's sql/ files, in one transaction (docs/architecture.md § The database).

-- SECURITY DEFINER functions belong to the system role (docs/security.md): made as it.
SET ROLE storefront_system;

-- Logout, as the bound session: this one, all of the user's, or all but this one.
CREATE OR REPLACE FUNCTION auth_end_sessions(p_scope text) RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        ended integer;
      BEGIN
        IF app_user_id() IS NULL OR p_scope NOT IN ('local', 'global', 'others') THEN
          RETURN 0;
        END IF;
        UPDATE auth_sessions SET revoked_at = now()
         WHERE user_id = app_user_id() AND revoked_at IS NULL
           AND CASE p_scope WHEN 'local' THEN id = app_session_id() WHEN 'others' THEN id <> app_session_id() ELSE true END;
        GET DIAGNOSTICS ended = ROW_COUNT;
        RETURN ended;
      END $$;
REVOKE ALL ON FUNCTION auth_end_sessions(p_scope text) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION auth_end_sessions(p_scope text) TO storefront_rls;

-- A session, with its first refresh token, for a user the API has just proven.
CREATE OR REPLACE FUNCTION auth_open_session(p_user uuid, p_refresh_hash bytea, p_user_agent text, p_ip inet, p_ticket text) RETURNS uuid
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        session uuid;
      BEGIN
        IF NOT storefront_private.ticket_valid('open-session', p_user::text, p_ticket) THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        INSERT INTO auth_sessions (user_id, user_agent, ip) VALUES (p_user, left(p_user_agent, 512), p_ip) RETURNING id INTO session;
        INSERT INTO auth_refresh_tokens (session_id, token_hash) VALUES (session, p_refresh_hash);
        UPDATE users SET last_sign_in_at = now() WHERE id = p_user;
        RETURN session;
      END $$;
REVOKE ALL ON FUNCTION auth_open_session(p_user uuid, p_refresh_hash bytea, p_user_agent text, p_ip inet, p_ticket text) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION auth_open_session(p_user uuid, p_refresh_hash bytea, p_user_agent text, p_ip inet, p_ticket text) TO storefront_rls;

-- Rotation: the old token is the credential. Reuse revokes the session (the token family).
CREATE OR REPLACE FUNCTION auth_rotate_refresh_token(p_old_hash bytea, p_new_hash bytea, p_reuse_seconds integer) RETURNS TABLE(outcome text, session_id uuid, user_id uuid, current_hash bytea, hops integer)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      #variable_conflict use_column
      DECLARE
        token record;
        known record;
        head record;
      BEGIN
        UPDATE auth_refresh_tokens t SET used_at = now()
          FROM auth_sessions s
         WHERE t.token_hash = p_old_hash AND t.used_at IS NULL AND s.id = t.session_id AND s.revoked_at IS NULL
           AND s.created_at > now() - (SELECT i.session_max_age FROM storefront_private.installation i)
        RETURNING t.id, t.session_id, s.user_id INTO token;
        IF FOUND THEN
          INSERT INTO auth_refresh_tokens (session_id, token_hash, parent_id)
          VALUES (token.session_id, p_new_hash, token.id);
          UPDATE auth_sessions SET refreshed_at = now() WHERE id = token.session_id;
          outcome := 'rotated';
          session_id := token.session_id;
          user_id := token.user_id;
          current_hash := p_new_hash;
          hops := 1;
          RETURN NEXT;
          RETURN;
        END IF;
        SELECT t.id, t.session_id, t.used_at, s.user_id, (s.revoked_at IS NULL
           AND s.created_at > now() - (SELECT i.session_max_age FROM storefront_private.installation i)) AS live INTO known
          FROM auth_refresh_tokens t JOIN auth_sessions s ON s.id = t.session_id
         WHERE t.token_hash = p_old_hash;
        IF NOT FOUND OR known.used_at IS NULL THEN
          outcome := 'unknown';
          RETURN NEXT;
          RETURN;
        END IF;
        outcome := 'reused';
        session_id := known.session_id;
        IF known.live AND p_reuse_seconds > 0 AND known.used_at > now() - make_interval(secs => p_reuse_seconds) THEN
          FOR attempt IN 1..10 LOOP
            WITH RECURSIVE chain (id, token_hash, used_at, depth) AS (
              SELECT known.id, p_old_hash, known.used_at, 0
              UNION ALL
              SELECT c.id, c.token_hash, c.used_at, chain.depth + 1
                FROM chain JOIN auth_refresh_tokens c ON c.session_id = known.session_id AND c.parent_id = chain.id
               WHERE chain.used_at IS NOT NULL AND chain.depth < 1000
            )
            SELECT chain.id, chain.token_hash, chain.depth INTO head FROM chain WHERE chain.used_at IS NULL;
            EXIT WHEN NOT FOUND;
            PERFORM 1 FROM auth_refresh_tokens t WHERE t.id = head.id AND t.used_at IS NULL FOR SHARE;
            IF FOUND THEN
              outcome := 'current';
              user_id := known.user_id;
              current_hash := head.token_hash;
              hops := head.depth;
              RETURN NEXT;
              RETURN;
            END IF;
          END LOOP;
          -- Within the interval nothing is revoked, even when no current token could be pinned down.
          RETURN NEXT;
          RETURN;
        END IF;
        UPDATE auth_sessions SET revoked_at = now() WHERE id = known.session_id AND revoked_at IS NULL;
        RETURN NEXT;
      END $$;
REVOKE ALL ON FUNCTION auth_rotate_refresh_token(p_old_hash bytea, p_new_hash bytea, p_reuse_seconds integer) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION auth_rotate_refresh_token(p_old_hash bytea, p_new_hash bytea, p_reuse_seconds integer) TO storefront_rls;

RESET ROLE;

ALTER TABLE auth_sessions ENABLE ROW LEVEL SECURITY;
ALTER TABLE auth_sessions FORCE ROW LEVEL SECURITY;
ALTER TABLE auth_refresh_tokens ENABLE ROW LEVEL SECURITY;
ALTER TABLE auth_refresh_tokens FORCE ROW LEVEL SECURITY;

REVOKE ALL ON TABLE auth_refresh_tokens FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE auth_refresh_tokens TO storefront_system;

REVOKE ALL ON TABLE auth_sessions FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE auth_sessions TO storefront_system;

GRANT SELECT,USAGE ON SEQUENCE auth_refresh_tokens_id_seq TO storefront_system;

DROP POLICY IF EXISTS auth_refresh_tokens_system ON auth_refresh_tokens;
CREATE POLICY auth_refresh_tokens_system ON auth_refresh_tokens TO storefront_system
  USING (true)
  WITH CHECK (true);

DROP POLICY IF EXISTS auth_sessions_system ON auth_sessions;
CREATE POLICY auth_sessions_system ON auth_sessions TO storefront_system
  USING (true)
  WITH CHECK (true);
