-- The guards' one lookup per request: the caller (session or store key) and how it relates to the store
-- a route names (directly, as its only store, or as the store of a record).

-- Applied after the migrations, with every lib's sql/ files, in one transaction (docs/architecture.md § The database).

-- SECURITY DEFINER functions belong to the system role (docs/security.md): made as it.
SET ROLE storefront_system;

-- The guards' one lookup: the session's user, and how it relates to the store a route names
-- (directly, as its only store, or as the store of a record). Nothing about a store or record the
-- caller has no relation to.
CREATE OR REPLACE FUNCTION app_authorize(p_session uuid, p_proof text, p_store uuid, p_resource text, p_record uuid, p_only_store boolean) RETURNS TABLE(user_id uuid, email text, role text, store_id uuid, relation text, permissions text[], record_owner uuid, store_count integer)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        who record;
        target uuid := p_store;
        owner_of_record uuid;
        store_owner uuid;
        member_permissions text[];
        candidates uuid[];
      BEGIN
        PERFORM storefront_private.clean_session();
        SELECT u.id, u.email, u.role, u.store_id INTO who FROM storefront_private.user_of_session(p_session, p_proof) u;
        IF NOT FOUND THEN
          RETURN;
        END IF;
        user_id := who.id;
        email := who.email;
        role := who.role;
        IF p_resource IS NOT NULL THEN
          target := NULL;
          IF p_resource = 'product' THEN SELECT r.store_id INTO target FROM products r WHERE r.id = p_record;
          ELSIF p_resource = 'customer' THEN SELECT r.store_id, r.user_id INTO target, owner_of_record FROM customers r WHERE r.id = p_record;
          ELSIF p_resource = 'order' THEN
            SELECT o.store_id, c.user_id INTO target, owner_of_record FROM orders o LEFT JOIN customers c ON c.id = o.customer_id WHERE o.id = p_record;
          ELSIF p_resource = 'webhook' THEN SELECT r.store_id INTO target FROM webhooks r WHERE r.id = p_record;
          ELSIF p_resource = 'social_account' THEN SELECT r.store_id INTO target FROM social_accounts r WHERE r.id = p_record;
          ELSIF p_resource = 'social_post' THEN SELECT r.store_id INTO target FROM social_posts r WHERE r.id = p_record;
          END IF;
        ELSIF p_store IS NULL AND p_only_store THEN
          candidates := ARRAY(
            SELECT s.id FROM stores s WHERE s.owner_id = who.id
            UNION SELECT m.store_id FROM store_members m WHERE m.user_id = who.id AND m.status = 'active'
            UNION SELECT who.store_id WHERE who.role = 'customer' AND who.store_id IS NOT NULL
            LIMIT 2);
          store_count := cardinality(candidates);
          IF store_count = 1 THEN target := candidates[1]; END IF;
        END IF;
        IF target IS NOT NULL THEN
          SELECT s.owner_id INTO store_owner FROM stores s WHERE s.id = target;
          IF FOUND THEN
            IF who.role = 'admin' THEN relation := 'admin';
            ELSIF store_owner = who.id THEN relation := 'owner';
            ELSE
              SELECT m.permissions INTO member_permissions FROM store_members m
               WHERE m.store_id = target AND m.user_id = who.id AND m.status = 'active';
              IF FOUND THEN
                relation := 'member';
                permissions := member_permissions;
              ELSIF who.role = 'customer' AND who.store_id = target THEN
                relation := 'customer';
              END IF;
            END IF;
          END IF;
        END IF;
        IF relation IS NOT NULL THEN
          store_id := target;
          record_owner := owner_of_record;
        END IF;
        RETURN NEXT;
      END $$;
REVOKE ALL ON FUNCTION app_authorize(p_session uuid, p_proof text, p_store uuid, p_resource text, p_record uuid, p_only_store boolean) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_authorize(p_session uuid, p_proof text, p_store uuid, p_resource text, p_record uuid, p_only_store boolean) TO storefront_rls;

-- The guards' lookup for a key: the live key whose secret hashes to p_hash, and whether the store
-- the route names (or the record's store) is its store. With p_bind, the transaction is bound to it.
CREATE OR REPLACE FUNCTION app_authorize_api_key(p_hash text, p_store uuid, p_resource text, p_record uuid, p_only_store boolean, p_bind boolean) RETURNS TABLE(key_id uuid, key_store uuid, permissions text[], store_id uuid, store_count integer)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
      DECLARE
        k record;
        target uuid := p_store;
      BEGIN
        PERFORM storefront_private.clean_session();
        IF p_hash IS NULL OR p_hash !~ '^[0-9a-f]{64}$' THEN
          RETURN;
        END IF;
        SELECT a.id, a.store_id, a.permissions INTO k FROM store_api_keys a
         WHERE a.secret_hash = decode(p_hash, 'hex') AND a.revoked_at IS NULL AND (a.expires_at IS NULL OR a.expires_at > now());
        IF NOT FOUND THEN
          RETURN;
        END IF;
        key_id := k.id;
        key_store := k.store_id;
        permissions := k.permissions;
        IF p_resource IS NOT NULL THEN
          target := NULL;
          
  IF p_resource = 'product' THEN SELECT r.store_id INTO target FROM products r WHERE r.id = p_record;
  ELSIF p_resource = 'customer' THEN SELECT r.store_id INTO target FROM customers r WHERE r.id = p_record;
  ELSIF p_resource = 'order' THEN SELECT r.store_id INTO target FROM orders r WHERE r.id = p_record;
  ELSIF p_resource = 'webhook' THEN SELECT r.store_id INTO target FROM webhooks r WHERE r.id = p_record;
  ELSIF p_resource = 'social_account' THEN SELECT r.store_id INTO target FROM social_accounts r WHERE r.id = p_record;
  ELSIF p_resource = 'social_post' THEN SELECT r.store_id INTO target FROM social_posts r WHERE r.id = p_record;
  END IF;
        ELSIF p_store IS NULL AND p_only_store THEN
          target := k.store_id;
          store_count := 1;
        END IF;
        IF target = k.store_id THEN
          store_id := target;
        END IF;
        IF p_bind THEN
          
  PERFORM set_config('app.api_key_id', k.id::text, true), set_config('app.api_key_store', k.store_id::text, true),
          set_config('app.api_key_permissions', array_to_string(k.permissions, ','), true),
          set_config('app.api_key_context', storefront_private.api_key_context_mac(
                       k.id::text, k.store_id::text, array_to_string(k.permissions, ',')), true);
        END IF;
        RETURN NEXT;
      END $_$;
REVOKE ALL ON FUNCTION app_authorize_api_key(p_hash text, p_store uuid, p_resource text, p_record uuid, p_only_store boolean, p_bind boolean) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_authorize_api_key(p_hash text, p_store uuid, p_resource text, p_record uuid, p_only_store boolean, p_bind boolean) TO storefront_rls;

CREATE OR REPLACE FUNCTION app_authorize_request(p_session uuid, p_proof text, p_store uuid, p_resource text, p_record uuid, p_only_store boolean) RETURNS TABLE(user_id uuid, email text, role text, store_id uuid, relation text, permissions text[], record_owner uuid, store_count integer)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        facts record;
      BEGIN
        -- app_authorize cleans the pooled session first, so the context is set after it, never before.
        SELECT * INTO facts FROM app_authorize(p_session, p_proof, p_store, p_resource, p_record, p_only_store);
        IF NOT FOUND THEN
          RETURN;
        END IF;
        PERFORM set_config('app.user_id', facts.user_id::text, true), set_config('app.role', facts.role, true),
                set_config('app.session_id', p_session::text, true),
                set_config('app.context', storefront_private.context_mac(facts.user_id::text, facts.role, p_session::text), true);
        RETURN QUERY SELECT facts.user_id, facts.email, facts.role, facts.store_id, facts.relation, facts.permissions,
                            facts.record_owner, facts.store_count;
      END $$;
REVOKE ALL ON FUNCTION app_authorize_request(p_session uuid, p_proof text, p_store uuid, p_resource text, p_record uuid, p_only_store boolean) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_authorize_request(p_session uuid, p_proof text, p_store uuid, p_resource text, p_record uuid, p_only_store boolean) TO storefront_rls;

RESET ROLE;
