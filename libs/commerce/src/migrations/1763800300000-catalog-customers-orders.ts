import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Products, customers, orders and the transactional outbox of domain events, with their
 * row-level security (and the store rule of the core outbox): staff (owner, admin, active member) see their stores' rows; a customer sees
 * the active products of its store, its own customer record and its own orders.
 */
export class CatalogCustomersOrders1763800300000 implements MigrationInterface {
  name = 'CatalogCustomersOrders1763800300000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE FUNCTION app_staff_store_ids() RETURNS uuid[]
      LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
        SELECT ARRAY(
          SELECT id FROM stores WHERE owner_id = app_user_id()
          UNION SELECT store_id FROM store_members WHERE user_id = app_user_id() AND status = 'active')
      $$`);

    await db.query(`
      CREATE TABLE products (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        name text NOT NULL,
        description text,
        price numeric(12, 2) NOT NULL CHECK (price >= 0),
        compare_price numeric(12, 2) CHECK (compare_price >= price),
        category text,
        seo_keywords text[] NOT NULL DEFAULT '{}',
        status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'active', 'archived')),
        inventory_quantity integer NOT NULL DEFAULT 0 CHECK (inventory_quantity >= 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX products_store_page_idx ON products (store_id, created_at DESC, id DESC)`);

    await db.query(`
      CREATE TABLE customers (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        user_id uuid UNIQUE REFERENCES users(id) ON DELETE SET NULL,
        name text NOT NULL,
        email text NOT NULL,
        phone text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE UNIQUE INDEX customers_email_key ON customers (store_id, lower(email))`);
    await db.query(`CREATE INDEX customers_store_page_idx ON customers (store_id, created_at DESC, id DESC)`);
    await db.query(`
      CREATE FUNCTION app_customer_ids() RETURNS uuid[]
      LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
        SELECT ARRAY(SELECT id FROM customers WHERE user_id = app_user_id())
      $$`);

    await db.query(`
      CREATE TABLE store_order_counters (
        store_id uuid PRIMARY KEY REFERENCES stores(id) ON DELETE CASCADE,
        last_number bigint NOT NULL
      )`);
    await db.query(`
      CREATE TABLE orders (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        order_number text NOT NULL,
        customer_id uuid REFERENCES customers(id) ON DELETE SET NULL,
        status text NOT NULL DEFAULT 'pending'
          CHECK (status IN ('pending', 'paid', 'shipped', 'delivered', 'cancelled', 'refunded')),
        currency char(3) NOT NULL,
        total numeric(14, 2) NOT NULL CHECK (total >= 0),
        placed_by uuid REFERENCES users(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (store_id, order_number)
      )`);
    await db.query(`CREATE INDEX orders_store_page_idx ON orders (store_id, created_at DESC, id DESC)`);
    await db.query(`CREATE INDEX orders_customer_idx ON orders (customer_id, created_at DESC, id DESC)`);
    await db.query(`
      CREATE TABLE order_items (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        order_id uuid NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        product_id uuid REFERENCES products(id) ON DELETE SET NULL,
        position integer NOT NULL,
        name text NOT NULL,
        quantity integer NOT NULL CHECK (quantity > 0),
        price numeric(12, 2) NOT NULL CHECK (price >= 0)
      )`);
    await db.query(`CREATE INDEX order_items_order_idx ON order_items (order_id, position)`);

    /**
     * Every stock change (adjustments, orders, cancellations) goes through this one conditional update:
     * it never takes stock below zero, serialises on the row lock, and lets a customer's order reserve
     * stock without giving customers UPDATE rights on products.
     */
    await db.query(`
      CREATE FUNCTION app_move_stock(p_product uuid, p_delta integer, p_active_only boolean)
      RETURNS TABLE (previous_quantity integer, quantity integer)
      LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = public AS $$
        UPDATE products
           SET inventory_quantity = inventory_quantity + p_delta, updated_at = now()
         WHERE id = p_product
           AND inventory_quantity + p_delta >= 0
           AND (NOT p_active_only OR status = 'active')
           AND (app_role() = 'admin' OR store_id = ANY (app_accessible_store_ids()))
        RETURNING inventory_quantity - p_delta, inventory_quantity
      $$`);

    const staff = `(app_role() = 'admin' OR store_id = ANY ((SELECT app_staff_store_ids())::uuid[]))`;
    await db.query(`ALTER TABLE products ENABLE ROW LEVEL SECURITY`);
    await db.query(`CREATE POLICY products_staff ON products FOR ALL USING (${staff}) WITH CHECK (${staff})`);
    await db.query(`CREATE POLICY products_customer_read ON products FOR SELECT
      USING (status = 'active' AND store_id = ANY ((SELECT app_accessible_store_ids())::uuid[]))`);

    await db.query(`ALTER TABLE customers ENABLE ROW LEVEL SECURITY`);
    await db.query(`CREATE POLICY customers_staff ON customers FOR ALL USING (${staff}) WITH CHECK (${staff})`);
    await db.query(`CREATE POLICY customers_self ON customers FOR SELECT USING (user_id = app_user_id())`);
    await db.query(
      `CREATE POLICY customers_self_update ON customers FOR UPDATE USING (user_id = app_user_id()) WITH CHECK (user_id = app_user_id())`,
    );

    const ownOrder = `(customer_id = ANY ((SELECT app_customer_ids())::uuid[]))`;
    await db.query(`ALTER TABLE orders ENABLE ROW LEVEL SECURITY`);
    await db.query(`CREATE POLICY orders_staff ON orders FOR ALL USING (${staff}) WITH CHECK (${staff})`);
    await db.query(`CREATE POLICY orders_customer ON orders FOR SELECT USING (${ownOrder})`);
    await db.query(`CREATE POLICY orders_customer_place ON orders FOR INSERT WITH CHECK (${ownOrder})`);
    await db.query(`CREATE POLICY orders_customer_cancel ON orders FOR UPDATE USING (${ownOrder}) WITH CHECK (${ownOrder})`);

    const ownOrderItem = `(order_id IN (SELECT id FROM orders))`;
    await db.query(`ALTER TABLE order_items ENABLE ROW LEVEL SECURITY`);
    await db.query(`CREATE POLICY order_items_staff ON order_items FOR ALL USING (${staff}) WITH CHECK (${staff})`);
    await db.query(`CREATE POLICY order_items_customer ON order_items FOR SELECT USING (${ownOrderItem})`);
    await db.query(`CREATE POLICY order_items_customer_place ON order_items FOR INSERT WITH CHECK (${ownOrderItem})`);

    await db.query(`ALTER TABLE store_order_counters ENABLE ROW LEVEL SECURITY`);
    await db.query(`CREATE POLICY store_order_counters_access ON store_order_counters FOR ALL
      USING (app_role() = 'admin' OR store_id = ANY ((SELECT app_accessible_store_ids())::uuid[]))
      WITH CHECK (app_role() = 'admin' OR store_id = ANY ((SELECT app_accessible_store_ids())::uuid[]))`);

    // Request transactions append events for their own stores; only the relay (system context) reads them.
    await db.query(`CREATE POLICY outbox_events_append ON outbox_events FOR INSERT
      WITH CHECK (app_role() = 'admin' OR store_id = ANY ((SELECT app_accessible_store_ids())::uuid[]))`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP POLICY outbox_events_append ON outbox_events');
    for (const table of ['order_items', 'orders', 'store_order_counters', 'customers', 'products']) {
      await db.query(`DROP TABLE ${table}`);
    }
    for (const fn of ['app_move_stock(uuid, integer, boolean)', 'app_customer_ids()', 'app_staff_store_ids()']) {
      await db.query(`DROP FUNCTION ${fn}`);
    }
  }
}
