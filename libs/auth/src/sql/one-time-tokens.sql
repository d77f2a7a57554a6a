-- One-time tokens (confirmation, recovery, e-mail change, magic links): nothing for requests.

-- Applied after the migrations, with every lib's sql/ files, in one transaction (docs/architecture.md § The database).

-- SECURITY DEFINER functions belong to the system role (docs/security.md): made as it.
SET ROLE storefront_system;

-- A magic link and code for the account of an address, replacing its live one: confirmed accounts
-- only, unless p_any_account (POST /otp with create_user, which has just made or reset the account).
-- Never the admin. Nothing for another address; the API answers the same either way.
CREATE OR REPLACE FUNCTION auth_issue_magic_link(p_email text, p_token_hash bytea, p_code_hash bytea, p_ttl_seconds integer, p_any_account boolean, p_ticket text) RETURNS TABLE(user_id uuid, email text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      #variable_conflict use_column
      DECLARE
        account record;
      BEGIN
        IF NOT storefront_private.ticket_valid('issue-token', lower(p_email) || ':magiclink', p_ticket) THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        SELECT u.id, u.email INTO account FROM users u
         WHERE lower(u.email) = lower(p_email) AND u.role <> 'admin'
           AND (p_any_account OR u.email_confirmed_at IS NOT NULL)
         FOR UPDATE;
        IF NOT FOUND THEN
          RETURN;
        END IF;
        INSERT INTO auth_one_time_tokens (user_id, kind, email, token_hash, code_hash, expires_at)
        VALUES (account.id, 'magiclink', account.email, p_token_hash, p_code_hash,
                now() + make_interval(secs => p_ttl_seconds))
        ON CONFLICT (user_id, kind) DO UPDATE
          SET email = EXCLUDED.email, token_hash = EXCLUDED.token_hash, code_hash = EXCLUDED.code_hash,
              created_at = now(), expires_at = EXCLUDED.expires_at;
        user_id := account.id;
        email := account.email;
        RETURN NEXT;
      END $$;
REVOKE ALL ON FUNCTION auth_issue_magic_link(p_email text, p_token_hash bytea, p_code_hash bytea, p_ttl_seconds integer, p_any_account boolean, p_ticket text) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION auth_issue_magic_link(p_email text, p_token_hash bytea, p_code_hash bytea, p_ttl_seconds integer, p_any_account boolean, p_ticket text) TO storefront_rls;

-- A new one-time token (link and code) for the account of an address, replacing the live one of
-- that purpose: `signup` for an unconfirmed account, `recovery` for any but the admin,
-- `email_change` for an account with a pending new address (the token goes to that one). Nothing
-- for an address without such an account; the API answers the same either way.
CREATE OR REPLACE FUNCTION auth_issue_token(p_email text, p_kind text, p_token_hash bytea, p_code_hash bytea, p_ttl_seconds integer, p_ticket text) RETURNS TABLE(user_id uuid, recipient text, email text, new_email text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      #variable_conflict use_column
      DECLARE
        account record;
      BEGIN
        IF NOT storefront_private.ticket_valid('issue-token', lower(p_email) || ':' || p_kind, p_ticket) THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        SELECT u.id, u.email, u.new_email INTO account FROM users u
         WHERE lower(u.email) = lower(p_email) AND u.role <> 'admin'
           AND CASE p_kind WHEN 'signup' THEN u.email_confirmed_at IS NULL
                           WHEN 'recovery' THEN true
                           WHEN 'email_change' THEN u.new_email IS NOT NULL
                           ELSE false END
         FOR UPDATE;
        IF NOT FOUND THEN
          RETURN;
        END IF;
        
        INSERT INTO auth_one_time_tokens (user_id, kind, email, token_hash, code_hash, expires_at)
        VALUES (account.id, p_kind, CASE WHEN p_kind = 'email_change' THEN account.new_email ELSE account.email END, p_token_hash, p_code_hash, now() + make_interval(secs => p_ttl_seconds))
        ON CONFLICT (user_id, kind) DO UPDATE
          SET email = EXCLUDED.email, token_hash = EXCLUDED.token_hash, code_hash = EXCLUDED.code_hash,
              created_at = now(), expires_at = EXCLUDED.expires_at;
        UPDATE users SET confirmation_sent_at = CASE WHEN p_kind = 'signup' THEN now() ELSE confirmation_sent_at END,
                         recovery_sent_at = CASE WHEN p_kind = 'recovery' THEN now() ELSE recovery_sent_at END,
                         email_change_sent_at = CASE WHEN p_kind = 'email_change' THEN now() ELSE email_change_sent_at END
         WHERE id = account.id;
        user_id := account.id;
        recipient := CASE WHEN p_kind = 'email_change' THEN account.new_email ELSE account.email END;
        email := account.email;
        new_email := account.new_email;
        RETURN NEXT;
      END $$;
REVOKE ALL ON FUNCTION auth_issue_token(p_email text, p_kind text, p_token_hash bytea, p_code_hash bytea, p_ttl_seconds integer, p_ticket text) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION auth_issue_token(p_email text, p_kind text, p_token_hash bytea, p_code_hash bytea, p_ttl_seconds integer, p_ticket text) TO storefront_rls;

-- The bound user asks for a new address: kept pending, with a token sent to it, until confirmed.
CREATE OR REPLACE FUNCTION auth_request_email_change(p_new_email text, p_token_hash bytea, p_code_hash bytea, p_ttl_seconds integer, p_ticket text) RETURNS TABLE(outcome text, email text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      #variable_conflict use_column
      
      DECLARE
        me uuid := app_user_id();
      BEGIN
        IF me IS NULL OR NOT storefront_private.ticket_valid('email-change', me::text || ':' || lower(p_new_email), p_ticket) THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        IF EXISTS (SELECT 1 FROM users u WHERE lower(u.email) = lower(p_new_email) AND u.id <> me) THEN
          outcome := 'email_taken';
          RETURN NEXT;
          RETURN;
        END IF;
        UPDATE users SET new_email = p_new_email, email_change_sent_at = now() WHERE id = me RETURNING users.email INTO email;
        
        INSERT INTO auth_one_time_tokens (user_id, kind, email, token_hash, code_hash, expires_at)
        VALUES (me, 'email_change', p_new_email, p_token_hash, p_code_hash, now() + make_interval(secs => p_ttl_seconds))
        ON CONFLICT (user_id, kind) DO UPDATE
          SET email = EXCLUDED.email, token_hash = EXCLUDED.token_hash, code_hash = EXCLUDED.code_hash,
              created_at = now(), expires_at = EXCLUDED.expires_at;
        outcome := 'requested';
        RETURN NEXT;
      END $$;
REVOKE ALL ON FUNCTION auth_request_email_change(p_new_email text, p_token_hash bytea, p_code_hash bytea, p_ttl_seconds integer, p_ticket text) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION auth_request_email_change(p_new_email text, p_token_hash bytea, p_code_hash bytea, p_ttl_seconds integer, p_ticket text) TO storefront_rls;

-- Uses a token once (found by the link's token, or by the address it went to and its code) and
-- does what it stands for: confirms the address (signup, recovery: the mailbox's owner clicked),
-- or makes the pending address the account's (email_change). The code path needs a ticket, made
-- by the API once it has counted the attempt (codes are short); a link's token is its own proof.
CREATE OR REPLACE FUNCTION auth_verify_token(p_kind text, p_token_hash bytea, p_email text, p_code_hash bytea, p_ticket text) RETURNS TABLE(outcome text, user_id uuid, email text, old_email text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      #variable_conflict use_column
      DECLARE
        token record;
        account record;
      BEGIN
        IF p_code_hash IS NOT NULL AND NOT storefront_private.ticket_valid('verify-code', lower(p_email) || ':' || p_kind, p_ticket) THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        DELETE FROM auth_one_time_tokens t
         WHERE t.id = (SELECT o.id FROM auth_one_time_tokens o
                        WHERE o.kind = p_kind
                          AND CASE WHEN p_code_hash IS NULL THEN o.token_hash = p_token_hash
                                   ELSE lower(o.email) = lower(p_email) AND o.code_hash = p_code_hash END
                        ORDER BY o.created_at DESC LIMIT 1 FOR UPDATE)
        RETURNING t.user_id, t.email, t.expires_at INTO token;
        IF NOT FOUND OR token.expires_at <= now() THEN
          outcome := 'invalid';
          RETURN NEXT;
          RETURN;
        END IF;
        SELECT u.id, u.email, u.new_email INTO account FROM users u WHERE u.id = token.user_id FOR UPDATE;
        IF p_kind = 'email_change' THEN
          IF account.new_email IS NULL OR lower(account.new_email) <> lower(token.email) THEN
            outcome := 'invalid';
          RETURN NEXT;
          RETURN;
          END IF;
          BEGIN
            UPDATE users SET email = account.new_email, new_email = NULL, email_change_sent_at = NULL,
                             email_confirmed_at = now(), updated_at = now()
             WHERE id = account.id;
          EXCEPTION WHEN unique_violation THEN
            outcome := 'email_taken';
          RETURN NEXT;
          RETURN;
          END;
          old_email := account.email;
          email := account.new_email;
        ELSE
          UPDATE users SET email_confirmed_at = coalesce(email_confirmed_at, now()) WHERE id = account.id;
          email := account.email;
        END IF;
        outcome := 'verified';
        user_id := account.id;
        RETURN NEXT;
      END $$;
REVOKE ALL ON FUNCTION auth_verify_token(p_kind text, p_token_hash bytea, p_email text, p_code_hash bytea, p_ticket text) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION auth_verify_token(p_kind text, p_token_hash bytea, p_email text, p_code_hash bytea, p_ticket text) TO storefront_rls;

RESET ROLE;

ALTER TABLE auth_one_time_tokens ENABLE ROW LEVEL SECURITY;
ALTER TABLE auth_one_time_tokens FORCE ROW LEVEL SECURITY;

REVOKE ALL ON TABLE auth_one_time_tokens FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE auth_one_time_tokens TO storefront_system;

DROP POLICY IF EXISTS auth_one_time_tokens_system ON auth_one_time_tokens;
CREATE POLICY auth_one_time_tokens_system ON auth_one_time_tokens TO storefront_system
  USING (true)
  WITH CHECK (true);
