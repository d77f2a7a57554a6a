-- Team members: the owner invites (an invitation's columns only: a request never names a user, a
-- status or an acceptance); a membership turns active only through accepting an invitation.

-- Applied after the migrations, with every lib's sql/ files, in one transaction (docs/architecture.md § The database).

-- SECURITY DEFINER functions belong to the system role (docs/security.md): made as it.
SET ROLE storefront_system;

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
GRANT SELECT, DELETE ON TABLE store_members TO storefront_rls;
GRANT INSERT (store_id, email, permissions, invite_token_hash, invite_expires_at, invited_by, invite_link_hash) ON TABLE store_members TO storefront_rls;
GRANT UPDATE (permissions, updated_at) ON TABLE store_members TO storefront_rls;

DROP POLICY IF EXISTS store_members_change ON store_members;
CREATE POLICY store_members_change ON store_members FOR UPDATE TO storefront_rls
  USING ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_managed_store_ids())::uuid[]))
  WITH CHECK ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_managed_store_ids())::uuid[]));

-- An invitation only: no user, status `invited`, not accepted (the INSERT grant names none of those
-- columns either). app_accept_invitation and auth_accept_invitation_link make a member active.
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
