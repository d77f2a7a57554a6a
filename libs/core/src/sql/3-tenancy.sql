-- The store sets every policy reads, each verifying the request context once: the stores where the
-- caller holds a permission (owners hold all; a store key its own store), is staff, owns, may see, and
-- its customer records. They read commerce's stores and members.

-- Applied after the migrations, with every lib's sql/ files, in one transaction (docs/architecture.md § The database).

-- SECURITY DEFINER functions belong to the system role (docs/security.md): made as it.
SET ROLE storefront_system;

CREATE OR REPLACE FUNCTION app_accessible_store_ids() RETURNS uuid[]
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    DECLARE
      me uuid := app_user_id();
    BEGIN
      IF me IS NULL THEN
        IF storefront_private.api_key_context_valid() THEN RETURN ARRAY[current_setting('app.api_key_store', true)::uuid]; END IF;
        RETURN '{}';
      END IF;
      RETURN ARRAY(SELECT id FROM stores WHERE owner_id = me
       UNION SELECT store_id FROM store_members WHERE user_id = me AND status = 'active'
       UNION SELECT store_id FROM users WHERE id = me AND role = 'customer' AND store_id IS NOT NULL);
    END $$;
REVOKE ALL ON FUNCTION app_accessible_store_ids() FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_accessible_store_ids() TO storefront_rls;

CREATE OR REPLACE FUNCTION app_customer_ids() RETURNS uuid[]
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
        DECLARE
          me uuid := app_user_id();
        BEGIN
          IF me IS NULL THEN
            RETURN '{}';
          END IF;
          RETURN ARRAY(SELECT id FROM customers WHERE user_id = me);
        END $$;
REVOKE ALL ON FUNCTION app_customer_ids() FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_customer_ids() TO storefront_rls;

CREATE OR REPLACE FUNCTION app_managed_store_ids() RETURNS uuid[]
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
        DECLARE
          me uuid := app_user_id();
        BEGIN
          IF me IS NULL THEN
            RETURN '{}';
          END IF;
          RETURN ARRAY(SELECT id FROM stores WHERE owner_id = me);
        END $$;
REVOKE ALL ON FUNCTION app_managed_store_ids() FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_managed_store_ids() TO storefront_rls;

CREATE OR REPLACE FUNCTION app_staff_store_ids() RETURNS uuid[]
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    DECLARE
      me uuid := app_user_id();
    BEGIN
      IF me IS NULL THEN
        IF storefront_private.api_key_context_valid() THEN RETURN ARRAY[current_setting('app.api_key_store', true)::uuid]; END IF;
        RETURN '{}';
      END IF;
      RETURN ARRAY(SELECT id FROM stores WHERE owner_id = me
       UNION SELECT store_id FROM store_members WHERE user_id = me AND status = 'active');
    END $$;
REVOKE ALL ON FUNCTION app_staff_store_ids() FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_staff_store_ids() TO storefront_rls;

CREATE OR REPLACE FUNCTION app_store_ids_with(p_permission text) RETURNS uuid[]
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    DECLARE
      me uuid := app_user_id();
    BEGIN
      IF me IS NULL THEN
        IF storefront_private.api_key_context_valid() THEN IF p_permission = ANY (string_to_array(current_setting('app.api_key_permissions', true), ',')) THEN
            RETURN ARRAY[current_setting('app.api_key_store', true)::uuid];
          END IF; END IF;
        RETURN '{}';
      END IF;
      RETURN ARRAY(SELECT id FROM stores WHERE owner_id = me
       UNION SELECT store_id FROM store_members
              WHERE user_id = me AND status = 'active' AND p_permission = ANY (permissions));
    END $$;
REVOKE ALL ON FUNCTION app_store_ids_with(p_permission text) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_store_ids_with(p_permission text) TO storefront_rls;

RESET ROLE;
