-- Team members: the owner invites (through app_invite_member, with the API's ticket: a request never
-- names a user, a status, an acceptance or a token's hash); a membership turns active only through
-- accepting an invitation. A request never reads an invitation's token hashes either.

-- Applied after the migrations, with every lib's sql/ files, in one transaction (docs/architecture.md § The database).

-- SECURITY DEFINER functions belong to the system role (docs/security.md): made as it.
SET ROLE storefront_system;

-- An invitation, by whoever may invite to that store (its owner or an admin, as store_members_invite
-- says). `p_ticket` is the API's HMAC over the store, the inviter, the e-mail and both tokens' hashes,
-- at most a minute old: an injected query cannot store a hash of its choosing (whose token it would
-- know, and could then accept or sign in with). No row when the store already has that e-mail.
CREATE OR REPLACE FUNCTION app_invite_member(p_store uuid, p_email text, p_permissions text[], p_token_hash bytea, p_link_hash bytea, p_ttl_hours integer, p_invited_by uuid, p_ticket text) RETURNS TABLE(id uuid, store_id uuid, email text, user_id uuid, permissions text[], status text, invite_expires_at timestamp with time zone, accepted_at timestamp with time zone, created_at timestamp with time zone, updated_at timestamp with time zone)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      #variable_conflict use_column
      BEGIN
        -- coalesce: a null argument makes the subject null, and that no ticket is valid for.
        IF NOT coalesce(storefront_private.ticket_valid('invite',
             p_store::text || ':' || p_invited_by::text || ':' || p_email || ':' || encode(p_token_hash, 'hex') || ':' || encode(p_link_hash, 'hex'),
             p_ticket), false) THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        IF NOT coalesce(app_role() = 'admin' OR p_store = ANY (app_managed_store_ids()), false) THEN
          RAISE EXCEPTION 'not allowed to invite to this store' USING ERRCODE = '42501';
        END IF;
        RETURN QUERY
          INSERT INTO store_members AS m (store_id, email, permissions, invite_token_hash, invite_link_hash, invite_expires_at, invited_by)
          VALUES (p_store, p_email, p_permissions, p_token_hash, p_link_hash, now() + make_interval(hours => p_ttl_hours), p_invited_by)
          ON CONFLICT (store_id, lower(email)) DO NOTHING
          RETURNING m.id, m.store_id, m.email, m.user_id, m.permissions, m.status, m.invite_expires_at, m.accepted_at, m.created_at, m.updated_at;
      END $$;
REVOKE ALL ON FUNCTION app_invite_member(p_store uuid, p_email text, p_permissions text[], p_token_hash bytea, p_link_hash bytea, p_ttl_hours integer, p_invited_by uuid, p_ticket text) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_invite_member(p_store uuid, p_email text, p_permissions text[], p_token_hash bytea, p_link_hash bytea, p_ttl_hours integer, p_invited_by uuid, p_ticket text) TO storefront_rls;

-- A team member accepting the invitation made for its (the bound user's) e-mail.
CREATE OR REPLACE FUNCTION app_accept_invitation(p_token_hash bytea) RETURNS TABLE(store_id uuid, member_id uuid)
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
        UPDATE store_members m
           SET user_id = app_user_id(), status = 'active', accepted_at = now(), updated_at = now(), invite_token_hash = NULL
         WHERE m.invite_token_hash = p_token_hash AND m.status = 'invited' AND m.invite_expires_at > now()
           AND lower(m.email) = (SELECT lower(u.email) FROM users u WHERE u.id = app_user_id() AND u.role = 'team_member')
        RETURNING m.store_id, m.id
      $$;
REVOKE ALL ON FUNCTION app_accept_invitation(p_token_hash bytea) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_accept_invitation(p_token_hash bytea) TO storefront_rls;

-- The invitation e-mail's link (its own token, never shown to the inviting merchant): accepts the
-- invitation for the invited address's account, made when there is none (a team member, its
-- address confirmed, no password yet); an existing account must be a team member.
CREATE OR REPLACE FUNCTION auth_accept_invitation_link(p_link_hash bytea) RETURNS TABLE(outcome text, user_id uuid, email text, store_id uuid)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      #variable_conflict use_column
      DECLARE
        invitation record;
        account record;
      BEGIN
        SELECT m.id, m.store_id, m.email INTO invitation FROM store_members m
         WHERE m.invite_link_hash = p_link_hash AND m.status = 'invited' AND m.invite_expires_at > now()
         FOR UPDATE;
        IF NOT FOUND THEN
          outcome := 'invalid';
          RETURN NEXT;
          RETURN;
        END IF;
        INSERT INTO users (email, password_hash, role, provider, email_confirmed_at)
        VALUES (invitation.email, NULL, 'team_member', 'email', now())
        ON CONFLICT ((lower(email))) DO NOTHING;
        SELECT u.id, u.email, u.role INTO account FROM users u WHERE lower(u.email) = lower(invitation.email) FOR UPDATE;
        IF account.role <> 'team_member' THEN
          outcome := 'wrong_role';
          RETURN NEXT;
          RETURN;
        END IF;
        UPDATE users SET email_confirmed_at = coalesce(email_confirmed_at, now()) WHERE id = account.id;
        UPDATE store_members SET user_id = account.id, status = 'active', accepted_at = now(), updated_at = now(),
                                 invite_token_hash = NULL, invite_link_hash = NULL
         WHERE id = invitation.id;
        outcome := 'accepted';
        user_id := account.id;
        email := account.email;
        store_id := invitation.store_id;
        RETURN NEXT;
      END $$;
REVOKE ALL ON FUNCTION auth_accept_invitation_link(p_link_hash bytea) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION auth_accept_invitation_link(p_link_hash bytea) TO storefront_rls;

RESET ROLE;

ALTER TABLE store_members ENABLE ROW LEVEL SECURITY;
ALTER TABLE store_members FORCE ROW LEVEL SECURITY;

REVOKE ALL ON TABLE store_members FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE store_members TO storefront_system;
GRANT DELETE ON TABLE store_members TO storefront_rls;
-- Every column but the invitation's token hashes (the link's would sign its holder in).
GRANT SELECT (id, store_id, email, user_id, permissions, status, invite_expires_at, invited_by, accepted_at, created_at, updated_at) ON TABLE store_members TO storefront_rls;
GRANT INSERT (store_id, email, permissions, invite_expires_at, invited_by) ON TABLE store_members TO storefront_rls;
GRANT UPDATE (permissions, updated_at) ON TABLE store_members TO storefront_rls;

DROP POLICY IF EXISTS store_members_change ON store_members;
CREATE POLICY store_members_change ON store_members FOR UPDATE TO storefront_rls
  USING ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_managed_store_ids())::uuid[]))
  WITH CHECK ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_managed_store_ids())::uuid[]));

-- An invitation only: no user, status `invited`, not accepted (the INSERT grant names none of those
-- columns, nor the token hashes: a row inserted directly has no token and is never accepted; the API
-- invites through app_invite_member). app_accept_invitation and auth_accept_invitation_link make a
-- member active.
DROP POLICY IF EXISTS store_members_invite ON store_members;
CREATE POLICY store_members_invite ON store_members FOR INSERT TO storefront_rls
  WITH CHECK (
    ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_managed_store_ids())::uuid[]))
    AND status = 'invited'
    AND user_id IS NULL
    AND accepted_at IS NULL
  );

DROP POLICY IF EXISTS store_members_read ON store_members;
CREATE POLICY store_members_read ON store_members FOR SELECT TO storefront_rls
  USING (
    (SELECT app_role()) = 'admin'
    OR store_id = ANY ((SELECT app_managed_store_ids())::uuid[])
    OR user_id = (SELECT app_user_id())
  );

DROP POLICY IF EXISTS store_members_remove ON store_members;
CREATE POLICY store_members_remove ON store_members FOR DELETE TO storefront_rls
  USING ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_managed_store_ids())::uuid[]));

DROP POLICY IF EXISTS store_members_system ON store_members;
CREATE POLICY store_members_system ON store_members TO storefront_system
  USING (true)
  WITH CHECK (true);
