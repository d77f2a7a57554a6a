-- Products: staff holding `catalog` manage them; everyone with access to the store reads the active
-- ones. Stock moves only through app_move_stock (and an order's own stock functions).

-- Applied after the migrations, with every lib's sql/ files, in one transaction (docs/architecture.md § The database).

-- SECURITY DEFINER functions belong to the system role (docs/security.md): made as it.
SET ROLE storefront_system;

-- Every stock change (adjustments, orders, cancellations) goes through this one conditional update:
-- it never takes stock below zero, serialises on the row lock, and lets a customer's order reserve
-- stock without giving customers UPDATE rights on products.
CREATE OR REPLACE FUNCTION app_move_stock(p_product uuid, p_delta integer, p_active_only boolean) RETURNS TABLE(previous_quantity integer, quantity integer)
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
        UPDATE products
           SET inventory_quantity = inventory_quantity + p_delta, updated_at = now()
         WHERE id = p_product
           AND inventory_quantity::bigint + p_delta BETWEEN 0 AND 1000000000
           AND (NOT p_active_only OR status = 'active')
           AND (app_role() = 'admin' OR store_id = ANY (app_store_ids_with('catalog')))
        RETURNING inventory_quantity - p_delta, inventory_quantity
      $$;
REVOKE ALL ON FUNCTION app_move_stock(p_product uuid, p_delta integer, p_active_only boolean) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_move_stock(p_product uuid, p_delta integer, p_active_only boolean) TO storefront_rls;

RESET ROLE;

ALTER TABLE products ENABLE ROW LEVEL SECURITY;
ALTER TABLE products FORCE ROW LEVEL SECURITY;

REVOKE ALL ON TABLE products FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE products TO storefront_system;
GRANT SELECT, INSERT, DELETE ON TABLE products TO storefront_rls;
GRANT UPDATE (name, description, price, compare_price, category, seo_keywords, status, updated_at) ON TABLE products TO storefront_rls;

DROP POLICY IF EXISTS products_active_read ON products;
CREATE POLICY products_active_read ON products FOR SELECT TO storefront_rls
  USING (status = 'active' AND store_id = ANY ((SELECT app_accessible_store_ids())::uuid[]));

DROP POLICY IF EXISTS products_catalog ON products;
CREATE POLICY products_catalog ON products TO storefront_rls
  USING ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_store_ids_with('catalog'))::uuid[]))
  WITH CHECK (
    (SELECT app_role()) = 'admin'
    OR store_id = ANY ((SELECT app_store_ids_with('catalog'))::uuid[])
  );

DROP POLICY IF EXISTS products_system ON products;
CREATE POLICY products_system ON products TO storefront_system
  USING (true)
  WITH CHECK (true);
