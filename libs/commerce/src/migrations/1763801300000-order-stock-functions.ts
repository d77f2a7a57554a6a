import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dropDefiners, handOverDefiner, REQUEST_ROLE, SYSTEM_ROLE } from '@app/core';
import { MAX_STOCK } from './1763800500000-rls-hardening.js';

/** Orders `p_order` when the caller may act on it: its store's staff holding `orders`, its customer, or the admin. */
const CALLER_MAY_ACT = `(app_role() = 'admin' OR o.store_id = ANY (app_store_ids_with('orders')) OR o.customer_id = ANY (app_customer_ids()))`;

/**
 * An order's stock moves as the order's own, not as any amount a caller names: placing an order
 * takes exactly its items' quantities, once, in the transaction that inserted it; cancelling puts
 * them back, once, in the transaction that cancelled it. Every order must have taken its stock when
 * its transaction commits. `app_move_stock` (any amount) is left to staff holding `catalog`.
 */
export class OrderStockFunctions1763801300000 implements MigrationInterface {
  name = 'OrderStockFunctions1763801300000';

  async up(db: QueryRunner): Promise<void> {
    // Orders placed before took their stock through app_move_stock: they count as having taken it.
    await db.query(
      `ALTER TABLE orders ADD COLUMN stock_taken boolean NOT NULL DEFAULT true, ADD COLUMN stock_returned boolean NOT NULL DEFAULT false`,
    );
    await db.query(`ALTER TABLE orders ALTER COLUMN stock_taken SET DEFAULT false`);
    // A request inserts an order's own fields only, never its stock flags.
    await db.query(`REVOKE INSERT ON orders FROM ${REQUEST_ROLE}`);
    await db.query(`GRANT INSERT (store_id, order_number, customer_id, status, currency, total, placed_by) ON orders TO ${REQUEST_ROLE}`);

    // Takes the stock of an order inserted in this transaction: per product, in ascending id order (so
    // concurrent orders cannot deadlock), active products only, never below zero. Answers one row per
    // product; `taken` false on the first that fell short (the caller then rolls back).
    await db.query(`
      CREATE FUNCTION app_take_order_stock(p_order uuid)
      RETURNS TABLE (product_id uuid, previous_quantity integer, quantity integer, delta integer, taken boolean)
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      #variable_conflict use_column
      DECLARE
        line record;
      BEGIN
        UPDATE orders o SET stock_taken = true
         WHERE o.id = p_order AND NOT o.stock_taken AND o.status = 'pending' AND o.xmin = pg_current_xact_id()::xid AND ${CALLER_MAY_ACT};
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
      END $$`);
    await handOverDefiner(db, 'app_take_order_stock(uuid)');

    // Puts back the stock of an order cancelled in this transaction, once; inactive products too,
    // deleted ones (product_id null) skipped, never beyond the most a product may hold.
    await db.query(`
      CREATE FUNCTION app_return_order_stock(p_order uuid)
      RETURNS TABLE (product_id uuid, previous_quantity integer, quantity integer, delta integer)
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      #variable_conflict use_column
      DECLARE
        line record;
      BEGIN
        UPDATE orders o SET stock_returned = true
         WHERE o.id = p_order AND o.stock_taken AND NOT o.stock_returned AND o.status = 'cancelled'
           AND o.xmin = pg_current_xact_id()::xid AND ${CALLER_MAY_ACT};
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
           WHERE p.id = line.id AND p.inventory_quantity::bigint + line.back <= ${MAX_STOCK}
          RETURNING p.inventory_quantity - line.back, p.inventory_quantity INTO previous_quantity, quantity;
          IF FOUND THEN
            RETURN NEXT;
          END IF;
        END LOOP;
      END $$`);
    await handOverDefiner(db, 'app_return_order_stock(uuid)');

    // Any amount, for staff who manage the catalog (the inventory route) and the admin.
    await db.query(`SET ROLE ${SYSTEM_ROLE}`);
    await db.query(`
      CREATE OR REPLACE FUNCTION app_move_stock(p_product uuid, p_delta integer, p_active_only boolean)
      RETURNS TABLE (previous_quantity integer, quantity integer)
      LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
        UPDATE products
           SET inventory_quantity = inventory_quantity + p_delta, updated_at = now()
         WHERE id = p_product
           AND inventory_quantity::bigint + p_delta BETWEEN 0 AND ${MAX_STOCK}
           AND (NOT p_active_only OR status = 'active')
           AND (app_role() = 'admin' OR store_id = ANY (app_store_ids_with('catalog')))
        RETURNING inventory_quantity - p_delta, inventory_quantity
      $$`);
    await db.query(`RESET ROLE`);

    // At commit, when its items are in: an order totals exactly its items (priced by the catalog at
    // insert) and has taken its stock, or it does not commit.
    await db.query(`
      CREATE FUNCTION app_check_order() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
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
      END $$`);
    // The trigger first: creating it needs EXECUTE, which the owner no longer has once the function is handed over.
    await db.query(`CREATE CONSTRAINT TRIGGER orders_checked_at_commit AFTER INSERT ON orders DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW EXECUTE FUNCTION app_check_order()`);
    await handOverDefiner(db, 'app_check_order()');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER orders_checked_at_commit ON orders`);
    await dropDefiners(db, ['app_take_order_stock(uuid)', 'app_return_order_stock(uuid)', 'app_check_order()']);
    await db.query(`ALTER TABLE orders DROP COLUMN stock_taken, DROP COLUMN stock_returned`);
  }
}
