import type { MigrationInterface, QueryRunner } from 'typeorm';

const DEFINERS = [
  'app_accessible_store_ids()',
  'app_managed_store_ids()',
  'app_staff_store_ids()',
  'app_customer_ids()',
  'app_move_stock(uuid, integer, boolean)',
];

/** The most stock a product can hold; stock moves beyond it are refused, not overflowed. */
export const MAX_STOCK = 1_000_000_000;

/**
 * Hardens the SECURITY DEFINER helpers: a search_path that temporary tables cannot shadow (pg_temp
 * last), EXECUTE for the request role only, and stock arithmetic that cannot overflow. A customer's
 * read of order items no longer scans every tenant's orders.
 */
export class RlsHardening1763800500000 implements MigrationInterface {
  name = 'RlsHardening1763800500000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE OR REPLACE FUNCTION app_move_stock(p_product uuid, p_delta integer, p_active_only boolean)
      RETURNS TABLE (previous_quantity integer, quantity integer)
      LANGUAGE sql VOLATILE SECURITY DEFINER AS $$
        UPDATE products
           SET inventory_quantity = inventory_quantity + p_delta, updated_at = now()
         WHERE id = p_product
           AND inventory_quantity::bigint + p_delta BETWEEN 0 AND ${MAX_STOCK}
           AND (NOT p_active_only OR status = 'active')
           AND (app_role() = 'admin' OR store_id = ANY (app_accessible_store_ids()))
        RETURNING inventory_quantity - p_delta, inventory_quantity
      $$`);
    for (const fn of DEFINERS) {
      await db.query(`ALTER FUNCTION ${fn} SET search_path = pg_catalog, public, pg_temp`);
      await db.query(`REVOKE EXECUTE ON FUNCTION ${fn} FROM PUBLIC`);
      await db.query(`GRANT EXECUTE ON FUNCTION ${fn} TO storefront_rls`);
    }
    await db.query(`DROP POLICY order_items_customer ON order_items`);
    await db.query(`CREATE POLICY order_items_customer ON order_items FOR SELECT
      USING (EXISTS (SELECT 1 FROM orders o WHERE o.id = order_items.order_id))`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP POLICY order_items_customer ON order_items`);
    await db.query(`CREATE POLICY order_items_customer ON order_items FOR SELECT USING (order_id IN (SELECT id FROM orders))`);
    for (const fn of DEFINERS) {
      await db.query(`ALTER FUNCTION ${fn} SET search_path = public`);
      await db.query(`GRANT EXECUTE ON FUNCTION ${fn} TO PUBLIC`);
    }
  }
}
