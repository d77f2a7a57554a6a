-- Customers: staff holding `customers` manage them, staff holding `orders` read them, a customer its own record.

-- Applied after the migrations, with every lib's sql/ files, in one transaction (docs/architecture.md § The database).

-- SECURITY DEFINER functions belong to the system role (docs/security.md): made as it.
SET ROLE storefront_system;

-- Planned at each call with its values (EXECUTE): a rare pattern takes the trigram index, a common
-- one the store's page index, which stops after one page.
CREATE OR REPLACE FUNCTION app_search_customers(p_store uuid, p_pattern text, p_before_created timestamp with time zone, p_before_id uuid, p_limit integer) RETURNS SETOF uuid
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
      BEGIN
        IF NOT (app_role() = 'admin' OR p_store = ANY (app_store_ids_with('customers'))) THEN
          RETURN;
        END IF;
        RETURN QUERY EXECUTE
          'SELECT c.id FROM customers c
            WHERE c.store_id = $1 AND (c.name ILIKE $2 OR c.email ILIKE $2)
              AND ($3::timestamptz IS NULL OR (c.created_at, c.id) < ($3, $4))
            ORDER BY c.created_at DESC, c.id DESC LIMIT $5'
          USING p_store, p_pattern, p_before_created, p_before_id, least(p_limit, 101);
      END $_$;
REVOKE ALL ON FUNCTION app_search_customers(p_store uuid, p_pattern text, p_before_created timestamp with time zone, p_before_id uuid, p_limit integer) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_search_customers(p_store uuid, p_pattern text, p_before_created timestamp with time zone, p_before_id uuid, p_limit integer) TO storefront_rls;

RESET ROLE;

ALTER TABLE customers ENABLE ROW LEVEL SECURITY;
ALTER TABLE customers FORCE ROW LEVEL SECURITY;

REVOKE ALL ON TABLE customers FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE customers TO storefront_system;
GRANT SELECT, INSERT ON TABLE customers TO storefront_rls;
GRANT UPDATE (name, email, phone, updated_at) ON TABLE customers TO storefront_rls;

DROP POLICY IF EXISTS customers_manage ON customers;
CREATE POLICY customers_manage ON customers TO storefront_rls
  USING ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_store_ids_with('customers'))::uuid[]))
  WITH CHECK (
    (SELECT app_role()) = 'admin'
    OR store_id = ANY ((SELECT app_store_ids_with('customers'))::uuid[])
  );

DROP POLICY IF EXISTS customers_orders_read ON customers;
CREATE POLICY customers_orders_read ON customers FOR SELECT TO storefront_rls
  USING ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_store_ids_with('orders'))::uuid[]));

DROP POLICY IF EXISTS customers_self ON customers;
CREATE POLICY customers_self ON customers FOR SELECT TO storefront_rls
  USING (user_id = (SELECT app_user_id()));

DROP POLICY IF EXISTS customers_self_create ON customers;
CREATE POLICY customers_self_create ON customers FOR INSERT TO storefront_rls
  WITH CHECK (
    user_id = (SELECT app_user_id())
    AND store_id = ANY ((SELECT app_accessible_store_ids())::uuid[])
  );

DROP POLICY IF EXISTS customers_self_update ON customers;
CREATE POLICY customers_self_update ON customers FOR UPDATE TO storefront_rls
  USING (user_id = (SELECT app_user_id()))
  WITH CHECK (user_id = (SELECT app_user_id()));

DROP POLICY IF EXISTS customers_system ON customers;
CREATE POLICY customers_system ON customers TO storefront_system
  USING (true)
  WITH CHECK (true);
