-- Orders and their items. An order's number comes from the database; an item's name and price from
-- the catalog; items are added only while the order is being placed; at commit the order totals its
-- items and has taken its stock. A customer places its own orders and cancels its own pending ones.

-- Applied after the migrations, with every lib's sql/ files, in one transaction (docs/architecture.md § The database).

-- SECURITY DEFINER functions belong to the system role (docs/security.md): made as it.
SET ROLE storefront_system;

-- At commit, when its items are in: an order totals exactly its items (priced by the catalog at
-- insert) and has taken its stock, or it does not commit.
CREATE OR REPLACE FUNCTION app_check_order() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        items_total numeric;
        items integer;
      BEGIN
        SELECT coalesce(sum(i.price * i.quantity), 0), count(*) INTO items_total, items FROM order_items i WHERE i.order_id = NEW.id;
        IF items = 0 OR items_total <> NEW.total THEN
          RAISE EXCEPTION 'order % totals % but its items %', NEW.id, NEW.total, items_total USING ERRCODE = '23514';
        END IF;
        IF NOT (SELECT o.stock_taken FROM orders o WHERE o.id = NEW.id) THEN
          RAISE EXCEPTION 'order % did not take its stock', NEW.id USING ERRCODE = '23514';
        END IF;
        RETURN NULL;
      END $$;
REVOKE ALL ON FUNCTION app_check_order() FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_check_order() TO storefront_rls;
-- Its trigger is created by the owner role, which needs EXECUTE for that.
GRANT EXECUTE ON FUNCTION app_check_order() TO storefront_owner;

-- An order's number is the store's next one, given here at insert: nobody chooses it (a request
-- may not touch the counters at all), and a failed order rolls its number back with it.
CREATE OR REPLACE FUNCTION app_number_order() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        next_number bigint;
      BEGIN
        INSERT INTO store_order_counters (store_id, last_number) VALUES (NEW.store_id, 1001)
        ON CONFLICT (store_id) DO UPDATE SET last_number = store_order_counters.last_number + 1
        RETURNING last_number INTO next_number;
        NEW.order_number := next_number::text;
        RETURN NEW;
      END $$;
REVOKE ALL ON FUNCTION app_number_order() FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_number_order() TO storefront_rls;
-- Its trigger is created by the owner role, which needs EXECUTE for that.
GRANT EXECUTE ON FUNCTION app_number_order() TO storefront_owner;

-- An item's name and price are the catalog's at insert, whoever inserts it (the order's total is
-- checked against its items at commit: app_check_order).
CREATE OR REPLACE FUNCTION app_price_order_item() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      BEGIN
        IF NEW.product_id IS NOT NULL THEN
          SELECT p.name, p.price INTO NEW.name, NEW.price FROM products p WHERE p.id = NEW.product_id AND p.store_id = NEW.store_id;
          IF NOT FOUND THEN
            RAISE EXCEPTION 'order item % is not a product of the store', NEW.product_id USING ERRCODE = '23503';
          END IF;
        END IF;
        RETURN NEW;
      END $$;
REVOKE ALL ON FUNCTION app_price_order_item() FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_price_order_item() TO storefront_rls;
-- Its trigger is created by the owner role, which needs EXECUTE for that.
GRANT EXECUTE ON FUNCTION app_price_order_item() TO storefront_owner;

-- Puts back the stock of an order cancelled in this transaction, once; inactive products too,
-- deleted ones (product_id null) skipped, never beyond the most a product may hold.
CREATE OR REPLACE FUNCTION app_return_order_stock(p_order uuid) RETURNS TABLE(product_id uuid, previous_quantity integer, quantity integer, delta integer)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      #variable_conflict use_column
      DECLARE
        line record;
      BEGIN
        UPDATE orders o SET stock_returned = true
         WHERE o.id = p_order AND o.stock_taken AND NOT o.stock_returned AND o.status = 'cancelled'
           AND o.xmin = pg_current_xact_id()::xid AND (app_role() = 'admin' OR o.store_id = ANY (app_store_ids_with('orders')) OR o.customer_id = ANY (app_customer_ids()));
        IF NOT FOUND THEN
          RAISE EXCEPTION 'order % was not cancelled by the caller in this transaction, or has returned its stock', p_order
            USING ERRCODE = '42501';
        END IF;
        FOR line IN
          SELECT i.product_id AS id, sum(i.quantity)::integer AS back FROM order_items i
           WHERE i.order_id = p_order AND i.product_id IS NOT NULL GROUP BY i.product_id ORDER BY i.product_id
        LOOP
          product_id := line.id;
          delta := line.back;
          UPDATE products p SET inventory_quantity = p.inventory_quantity + line.back, updated_at = now()
           WHERE p.id = line.id AND p.inventory_quantity::bigint + line.back <= 1000000000
          RETURNING p.inventory_quantity - line.back, p.inventory_quantity INTO previous_quantity, quantity;
          IF FOUND THEN
            RETURN NEXT;
          END IF;
        END LOOP;
      END $$;
REVOKE ALL ON FUNCTION app_return_order_stock(p_order uuid) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_return_order_stock(p_order uuid) TO storefront_rls;

-- Takes the stock of an order inserted in this transaction: per product, in ascending id order (so
-- concurrent orders cannot deadlock), active products only, never below zero. Answers one row per
-- product; `taken` false on the first that fell short (the caller then rolls back).
CREATE OR REPLACE FUNCTION app_take_order_stock(p_order uuid) RETURNS TABLE(product_id uuid, previous_quantity integer, quantity integer, delta integer, taken boolean)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      #variable_conflict use_column
      DECLARE
        line record;
      BEGIN
        UPDATE orders o SET stock_taken = true
         WHERE o.id = p_order AND NOT o.stock_taken AND o.status = 'pending' AND o.xmin = pg_current_xact_id()::xid AND (app_role() = 'admin' OR o.store_id = ANY (app_store_ids_with('orders')) OR o.customer_id = ANY (app_customer_ids()));
        IF NOT FOUND THEN
          RAISE EXCEPTION 'order % is not a new order of the caller, or has taken its stock', p_order USING ERRCODE = '42501';
        END IF;
        FOR line IN
          SELECT i.product_id AS id, sum(i.quantity)::integer AS wanted FROM order_items i
           WHERE i.order_id = p_order AND i.product_id IS NOT NULL GROUP BY i.product_id ORDER BY i.product_id
        LOOP
          product_id := line.id;
          delta := -line.wanted;
          UPDATE products p SET inventory_quantity = p.inventory_quantity - line.wanted, updated_at = now()
           WHERE p.id = line.id AND p.status = 'active' AND p.inventory_quantity >= line.wanted
          RETURNING p.inventory_quantity + line.wanted, p.inventory_quantity INTO previous_quantity, quantity;
          taken := FOUND;
          RETURN NEXT;
          IF NOT taken THEN
            RETURN;
          END IF;
        END LOOP;
      END $$;
REVOKE ALL ON FUNCTION app_take_order_stock(p_order uuid) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_take_order_stock(p_order uuid) TO storefront_rls;

RESET ROLE;

ALTER TABLE store_order_counters ENABLE ROW LEVEL SECURITY;
ALTER TABLE store_order_counters FORCE ROW LEVEL SECURITY;
ALTER TABLE orders ENABLE ROW LEVEL SECURITY;
ALTER TABLE orders FORCE ROW LEVEL SECURITY;
ALTER TABLE order_items ENABLE ROW LEVEL SECURITY;
ALTER TABLE order_items FORCE ROW LEVEL SECURITY;

REVOKE ALL ON TABLE order_items FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE order_items TO storefront_system;
GRANT SELECT, INSERT ON TABLE order_items TO storefront_rls;

REVOKE ALL ON TABLE orders FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE orders TO storefront_system;
GRANT SELECT ON TABLE orders TO storefront_rls;
GRANT INSERT (store_id, order_number, customer_id, status, currency, total, placed_by) ON TABLE orders TO storefront_rls;
GRANT UPDATE (status, updated_at) ON TABLE orders TO storefront_rls;

REVOKE ALL ON TABLE store_order_counters FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE store_order_counters TO storefront_system;

-- A new item's order is of the item's store and is being placed: inserted in this transaction (its row
-- version is this transaction's, and so is its creation time: an update alone gives an old order the
-- first, never the second), not yet past taking its stock. Every committed order has taken its stock
-- (app_check_order), so an order placed before is closed to new items, for its customer and its staff.
DROP POLICY IF EXISTS order_items_customer_place ON order_items;
CREATE POLICY order_items_customer_place ON order_items FOR INSERT TO storefront_rls
  WITH CHECK (EXISTS (SELECT 1 FROM orders o WHERE (o.id = order_items.order_id AND o.store_id = order_items.store_id AND o.status = 'pending' AND NOT o.stock_taken AND (o.xmin = (pg_current_xact_id())::xid)
      AND o.created_at = date_trunc('milliseconds', now()))));

DROP POLICY IF EXISTS order_items_customer_read ON order_items;
CREATE POLICY order_items_customer_read ON order_items FOR SELECT TO storefront_rls
  USING (EXISTS (SELECT 1 FROM orders o WHERE o.id = order_items.order_id));

-- Staff holding `orders`: read every item of their stores' orders, add items only as above.
DROP POLICY IF EXISTS order_items_manage ON order_items;
CREATE POLICY order_items_manage ON order_items TO storefront_rls
  USING ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_store_ids_with('orders'))::uuid[]))
  WITH CHECK (
    ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_store_ids_with('orders'))::uuid[]))
    AND (EXISTS (SELECT 1 FROM orders o WHERE (o.id = order_items.order_id AND o.store_id = order_items.store_id AND o.status = 'pending' AND NOT o.stock_taken AND (o.xmin = (pg_current_xact_id())::xid)
      AND o.created_at = date_trunc('milliseconds', now()))))
  );

DROP POLICY IF EXISTS order_items_system ON order_items;
CREATE POLICY order_items_system ON order_items TO storefront_system
  USING (true)
  WITH CHECK (true);

DROP POLICY IF EXISTS orders_customer_cancel ON orders;
CREATE POLICY orders_customer_cancel ON orders FOR UPDATE TO storefront_rls
  USING (customer_id = ANY ((SELECT app_customer_ids())::uuid[]) AND status = 'pending')
  WITH CHECK (customer_id = ANY ((SELECT app_customer_ids())::uuid[]) AND status = 'cancelled');

DROP POLICY IF EXISTS orders_customer_place ON orders;
CREATE POLICY orders_customer_place ON orders FOR INSERT TO storefront_rls
  WITH CHECK (
    customer_id = ANY ((SELECT app_customer_ids())::uuid[])
    AND status = 'pending'
    AND (customer_id IS NULL OR (EXISTS (SELECT 1 FROM customers c WHERE (c.id = orders.customer_id AND c.store_id = orders.store_id))))
  );

DROP POLICY IF EXISTS orders_customer_read ON orders;
CREATE POLICY orders_customer_read ON orders FOR SELECT TO storefront_rls
  USING (customer_id = ANY ((SELECT app_customer_ids())::uuid[]));

DROP POLICY IF EXISTS orders_manage ON orders;
CREATE POLICY orders_manage ON orders TO storefront_rls
  USING ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_store_ids_with('orders'))::uuid[]))
  WITH CHECK (
    ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_store_ids_with('orders'))::uuid[]))
    AND (customer_id IS NULL OR (EXISTS (SELECT 1 FROM customers c WHERE (c.id = orders.customer_id AND c.store_id = orders.store_id))))
  );

DROP POLICY IF EXISTS orders_system ON orders;
CREATE POLICY orders_system ON orders TO storefront_system
  USING (true)
  WITH CHECK (true);

DROP POLICY IF EXISTS store_order_counters_system ON store_order_counters;
CREATE POLICY store_order_counters_system ON store_order_counters TO storefront_system
  USING (true)
  WITH CHECK (true);

DROP TRIGGER IF EXISTS order_items_price ON order_items;
CREATE TRIGGER order_items_price BEFORE INSERT ON order_items FOR EACH ROW EXECUTE FUNCTION app_price_order_item();

DROP TRIGGER IF EXISTS orders_checked_at_commit ON orders;
CREATE CONSTRAINT TRIGGER orders_checked_at_commit AFTER INSERT ON orders DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION app_check_order();

DROP TRIGGER IF EXISTS orders_number ON orders;
CREATE TRIGGER orders_number BEFORE INSERT ON orders FOR EACH ROW EXECUTE FUNCTION app_number_order();
