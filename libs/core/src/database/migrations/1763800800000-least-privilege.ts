import type { MigrationInterface, QueryRunner } from 'typeorm';
import { OWNER_ROLE, PRIVATE_SCHEMA, REQUEST_ROLE, SYSTEM_ROLE } from '../roles.js';

const RLS = REQUEST_ROLE;
const SYS = SYSTEM_ROLE;
const SAFE_PATH = 'SET search_path = pg_catalog, public, pg_temp';

const ADMIN = `(SELECT app_role()) = 'admin'`;
const ME = `(SELECT app_user_id())`;
/** Rows of the stores where the caller holds `permission` (owners hold every one), or any store for the admin. */
const holding = (permission: string) => `(${ADMIN} OR store_id = ANY ((SELECT app_store_ids_with('${permission}'))::uuid[]))`;
/** The events a customer's own actions raise: placing and cancelling its orders, its sign-up and record. */
const CUSTOMER_EVENTS = ['order.created', 'order.updated', 'order.cancelled', 'inventory.updated', 'customer.created', 'customer.updated']
  .map((kind) => `'${kind}'`)
  .join(', ');
const OWN_ORDER = `(customer_id = ANY ((SELECT app_customer_ids())::uuid[]))`;
/**
 * A new row's parent (`parent`.id = `column`) is in the row's own store. Foreign keys are checked
 * without row-level security, so without this a row of store A could name store B's order, webhook
 * or post (which the workers, running as the system, would then act on).
 */
const sameStore = (table: string, column: string, parent: string, alias: string) =>
  `EXISTS (SELECT 1 FROM ${parent} ${alias} WHERE ${alias}.id = ${table}.${column} AND ${alias}.store_id = ${table}.store_id)`;
const ORDER_CUSTOMER_OF_STORE = `(customer_id IS NULL OR ${sameStore('orders', 'customer_id', 'customers', 'c')})`;

/**
 * What the request role may do, table by table: its grants (columns too, where an UPDATE may touch
 * only some) and the policies that pick its rows. A table missing here is closed to requests.
 */
const REQUEST_ACCESS: { table: string; grants: string[]; policies: string[] }[] = [
  {
    table: 'users',
    // Never the password hash, not even an admin's request.
    grants: ['SELECT (id, email, role, full_name, provider, store_id, created_at, updated_at, last_sign_in_at)'],
    policies: [`users_self FOR SELECT USING (id = ${ME} OR ${ADMIN})`],
  },
  {
    table: 'stores',
    grants: ['SELECT', 'INSERT', 'DELETE', 'UPDATE (name, currency, default_language, timezone, updated_at)'],
    policies: [
      // owner_id too: a store just inserted is not yet among the accessible ids the statement started with.
      `stores_read FOR SELECT USING (${ADMIN} OR owner_id = ${ME} OR id = ANY ((SELECT app_accessible_store_ids())::uuid[]))`,
      `stores_create FOR INSERT WITH CHECK (owner_id = ${ME} AND (SELECT app_role()) IN ('merchant', 'admin'))`,
      `stores_change FOR UPDATE USING (${ADMIN} OR owner_id = ${ME}) WITH CHECK (${ADMIN} OR owner_id = ${ME})`,
      `stores_delete FOR DELETE USING (${ADMIN} OR owner_id = ${ME})`,
    ],
  },
  {
    table: 'store_members',
    grants: ['SELECT', 'INSERT', 'DELETE', 'UPDATE (permissions, updated_at)'],
    policies: [
      `store_members_read FOR SELECT USING (${ADMIN} OR store_id = ANY ((SELECT app_managed_store_ids())::uuid[]) OR user_id = ${ME})`,
      `store_members_manage FOR ALL USING (${ADMIN} OR store_id = ANY ((SELECT app_managed_store_ids())::uuid[]))
         WITH CHECK (${ADMIN} OR store_id = ANY ((SELECT app_managed_store_ids())::uuid[]))`,
    ],
  },
  {
    table: 'products',
    // Stock moves only through app_move_stock.
    grants: ['SELECT', 'INSERT', 'DELETE', 'UPDATE (name, description, price, compare_price, category, seo_keywords, status, updated_at)'],
    policies: [
      `products_catalog FOR ALL USING ${holding('catalog')} WITH CHECK ${holding('catalog')}`,
      `products_active_read FOR SELECT USING (status = 'active' AND store_id = ANY ((SELECT app_accessible_store_ids())::uuid[]))`,
    ],
  },
  {
    table: 'customers',
    grants: ['SELECT', 'INSERT', 'UPDATE (name, email, phone, updated_at)'],
    policies: [
      `customers_manage FOR ALL USING ${holding('customers')} WITH CHECK ${holding('customers')}`,
      // Orders carry their customer's name and e-mail.
      `customers_orders_read FOR SELECT USING ${holding('orders')}`,
      `customers_self FOR SELECT USING (user_id = ${ME})`,
      `customers_self_update FOR UPDATE USING (user_id = ${ME}) WITH CHECK (user_id = ${ME})`,
    ],
  },
  {
    table: 'orders',
    grants: ['SELECT', 'INSERT', 'UPDATE (status, updated_at)'],
    policies: [
      `orders_manage FOR ALL USING ${holding('orders')} WITH CHECK (${holding('orders')} AND ${ORDER_CUSTOMER_OF_STORE})`,
      `orders_customer_read FOR SELECT USING ${OWN_ORDER}`,
      `orders_customer_place FOR INSERT WITH CHECK (${OWN_ORDER} AND status = 'pending' AND ${ORDER_CUSTOMER_OF_STORE})`,
      // A customer may only cancel its own pending order.
      `orders_customer_cancel FOR UPDATE USING (${OWN_ORDER} AND status = 'pending') WITH CHECK (${OWN_ORDER} AND status = 'cancelled')`,
    ],
  },
  {
    table: 'order_items',
    grants: ['SELECT', 'INSERT'],
    policies: [
      `order_items_manage FOR ALL USING ${holding('orders')} WITH CHECK (${holding('orders')} AND ${sameStore('order_items', 'order_id', 'orders', 'o')})`,
      `order_items_customer_read FOR SELECT USING (EXISTS (SELECT 1 FROM orders o WHERE o.id = order_items.order_id))`,
      // Into an order the caller sees, of the item's store, while it is being placed.
      `order_items_customer_place FOR INSERT WITH CHECK (EXISTS (SELECT 1 FROM orders o
         WHERE o.id = order_items.order_id AND o.store_id = order_items.store_id AND o.status = 'pending'))`,
    ],
  },
  {
    table: 'outbox_events',
    grants: ['INSERT'],
    policies: [
      // Staff append any event of their stores; a customer only the kinds its own actions raise (never
      // `order.paid`, `order.shipped`, a product's…).
      `outbox_events_append FOR INSERT WITH CHECK (${ADMIN} OR store_id = ANY ((SELECT app_staff_store_ids())::uuid[])
         OR (event IN (${CUSTOMER_EVENTS}) AND store_id = ANY ((SELECT app_accessible_store_ids())::uuid[])))`,
    ],
  },
  {
    table: 'idempotency_keys',
    grants: ['SELECT', 'INSERT', 'UPDATE', 'DELETE'],
    policies: [`idempotency_keys_own FOR ALL USING (user_id = ${ME}) WITH CHECK (user_id = ${ME})`],
  },
  {
    table: 'webhooks',
    grants: [
      'SELECT',
      'INSERT',
      'DELETE',
      'UPDATE (url, events, status, disabled_reason, secret_sealed, secret_hint, previous_secret_sealed, previous_secret_expires_at, updated_at)',
    ],
    policies: [`webhooks_manage FOR ALL USING ${holding('webhooks')} WITH CHECK ${holding('webhooks')}`],
  },
  {
    table: 'webhook_deliveries',
    grants: ['SELECT', 'INSERT', 'UPDATE (status, next_attempt_at, updated_at)'],
    policies: [
      `webhook_deliveries_manage FOR ALL USING ${holding('webhooks')}
         WITH CHECK (${holding('webhooks')} AND ${sameStore('webhook_deliveries', 'webhook_id', 'webhooks', 'w')})`,
    ],
  },
  {
    table: 'webhook_attempts',
    grants: ['SELECT'],
    policies: [`webhook_attempts_read FOR SELECT USING ${holding('webhooks')}`],
  },
  {
    table: 'merchant_notifications',
    grants: ['SELECT'],
    policies: [`merchant_notifications_read FOR SELECT USING ${holding('webhooks')}`],
  },
  {
    table: 'credit_accounts',
    grants: ['SELECT'],
    policies: [`credit_accounts_read FOR SELECT USING ${holding('billing')}`],
  },
  {
    table: 'credit_ledger',
    grants: ['SELECT'],
    policies: [`credit_ledger_read FOR SELECT USING ${holding('billing')}`],
  },
  {
    table: 'ai_images',
    grants: ['INSERT'],
    policies: [`ai_images_create FOR INSERT WITH CHECK ${holding('ai')}`],
  },
  {
    table: 'social_connect_states',
    grants: ['INSERT'],
    policies: [`social_connect_states_create FOR INSERT WITH CHECK (${holding('social')} AND user_id = ${ME})`],
  },
  ...['social_accounts', 'social_posts', 'social_post_results'].map((table) => ({
    table,
    grants: table === 'social_accounts' ? ['SELECT', 'INSERT', 'UPDATE', 'DELETE'] : ['SELECT', 'INSERT', 'UPDATE'],
    policies: [
      table === 'social_post_results'
        ? `${table}_manage FOR ALL USING ${holding('social')} WITH CHECK (${holding('social')} AND ${sameStore(table, 'post_id', 'social_posts', 'p')})`
        : `${table}_manage FOR ALL USING ${holding('social')} WITH CHECK ${holding('social')}`,
    ],
  })),
];

/** SECURITY DEFINER functions: owned by the system role, callable by requests. */
const DEFINERS = [
  'app_context_valid()',
  'app_user_id()',
  'app_role()',
  'app_session_id()',
  'app_accessible_store_ids()',
  'app_managed_store_ids()',
  'app_staff_store_ids()',
  'app_customer_ids()',
  'app_store_ids_with(text)',
  'app_move_stock(uuid, integer, boolean)',
  'app_open_credit_account(uuid, integer)',
  'app_bind_request(uuid, text)',
  'app_authorize(uuid, text, uuid, text, uuid, boolean)',
  'app_number_order()',
  'app_price_order_item()',
];

/**
 * Least privilege in the database (docs/security.md).
 *
 * Request transactions are bound to their session by `app_bind_request`, which checks a proof only
 * the API can make (an HMAC of the session id under the installation's key, which requests cannot
 * read), reads the user and role from the database, and records them with a MAC over this backend
 * and this transaction. `app_user_id()` and `app_role()` answer only while that MAC verifies, so a
 * request that sets `app.user_id` or `app.role` itself, or keeps them past its transaction, is nobody.
 *
 * Every table: row-level security forced (its owner too), request rights granted table by table
 * (columns where an UPDATE may touch only some), policies per permission, and a policy of the system
 * role's own instead of BYPASSRLS. Runs last, over every lib's tables.
 */
export class LeastPrivilege1763800800000 implements MigrationInterface {
  name = 'LeastPrivilege1763800800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE SCHEMA ${PRIVATE_SCHEMA}`);
    await db.query(`REVOKE ALL ON SCHEMA ${PRIVATE_SCHEMA} FROM PUBLIC`);
    await db.query(`GRANT USAGE ON SCHEMA ${PRIVATE_SCHEMA} TO ${SYS}`);
    await db.query(`
      CREATE TABLE ${PRIVATE_SCHEMA}.installation (
        id boolean PRIMARY KEY DEFAULT true CHECK (id),
        binding_key bytea NOT NULL,
        binding_ipad bytea NOT NULL,
        binding_opad bytea NOT NULL,
        session_max_age interval NOT NULL,
        welcome_credits integer NOT NULL DEFAULT 50 CHECK (welcome_credits >= 0),
        ai_hourly_limits jsonb NOT NULL DEFAULT '{}'
      )`);
    await db.query(`GRANT SELECT ON ${PRIVATE_SCHEMA}.installation TO ${SYS}`);
    // The billing settings the database enforces; the service writes them at start (CreditsService).
    await db.query(`GRANT UPDATE (welcome_credits, ai_hourly_limits) ON ${PRIVATE_SCHEMA}.installation TO ${SYS}`);
    // Request connections are pooled: whatever a request left on its session (settings made with a plain
    // SET, advisory locks) is undone before the next one binds or looks up, so it cannot reach another's.
    await db.query(`
      CREATE FUNCTION ${PRIVATE_SCHEMA}.clean_session() RETURNS void LANGUAGE plpgsql VOLATILE AS $$
      BEGIN
        RESET ALL;
        PERFORM pg_advisory_unlock_all();
      END $$`);
    // HMAC-SHA256 under the installation key (its pads are stored, so plain sha256 suffices). The hot
    // helpers below are PL/pgSQL: their plans are kept for the session, where a SQL function with its
    // own search_path would be planned again at every call, in every policy of every statement.
    await db.query(`
      CREATE FUNCTION ${PRIVATE_SCHEMA}.hmac(p_message text) RETURNS bytea LANGUAGE plpgsql STABLE ${SAFE_PATH} AS $$
      DECLARE
        mac bytea;
      BEGIN
        SELECT sha256(i.binding_opad || sha256(i.binding_ipad || convert_to(p_message, 'UTF8'))) INTO mac FROM ${PRIVATE_SCHEMA}.installation i;
        RETURN mac;
      END $$`);
    // What the context MAC covers: this backend, this transaction (its start), the user, role and session.
    await db.query(`
      CREATE FUNCTION ${PRIVATE_SCHEMA}.context_mac(p_user text, p_role text, p_session text) RETURNS text
      LANGUAGE plpgsql STABLE ${SAFE_PATH} AS $$
      BEGIN
        RETURN encode(${PRIVATE_SCHEMA}.hmac(concat_ws(':', 'context', pg_backend_pid(), extract(epoch FROM transaction_timestamp()),
                                                       p_user, p_role, p_session)), 'hex');
      END $$`);
    // The user of an open session, when the proof (the HMAC of its id) is right; nothing otherwise.
    await db.query(`
      CREATE FUNCTION ${PRIVATE_SCHEMA}.user_of_session(p_session uuid, p_proof text)
      RETURNS TABLE (id uuid, email text, role text, store_id uuid) LANGUAGE sql STABLE ${SAFE_PATH} AS $$
        SELECT u.id, u.email, u.role, u.store_id
          FROM auth_sessions s JOIN users u ON u.id = s.user_id
         WHERE s.id = p_session AND s.revoked_at IS NULL
           AND s.created_at > now() - (SELECT i.session_max_age FROM ${PRIVATE_SCHEMA}.installation i)
           AND p_proof IS NOT NULL
           AND sha256(convert_to(p_proof, 'UTF8')) = sha256(convert_to(encode(${PRIVATE_SCHEMA}.hmac('session:' || p_session::text), 'hex'), 'UTF8'))
      $$`);
    await db.query(`REVOKE ALL ON ALL FUNCTIONS IN SCHEMA ${PRIVATE_SCHEMA} FROM PUBLIC`);
    await db.query(`GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA ${PRIVATE_SCHEMA} TO ${SYS}`);

    // The bound user, or null: the settings count only while their MAC verifies (hashes compared, so
    // the comparison's time says nothing about the expected value).
    await db.query(`
      CREATE FUNCTION app_context_valid() RETURNS boolean LANGUAGE plpgsql STABLE SECURITY DEFINER ${SAFE_PATH} AS $$
      DECLARE
        context text := current_setting('app.context', true);
      BEGIN
        IF context IS NULL OR context = '' THEN
          RETURN false;
        END IF;
        RETURN sha256(convert_to(context, 'UTF8'))
             = sha256(convert_to(${PRIVATE_SCHEMA}.context_mac(current_setting('app.user_id', true), current_setting('app.role', true),
                                                              current_setting('app.session_id', true)), 'UTF8'));
      END $$`);
    await db.query(`
      CREATE OR REPLACE FUNCTION app_user_id() RETURNS uuid LANGUAGE plpgsql STABLE SECURITY DEFINER ${SAFE_PATH} AS $$
      BEGIN
        RETURN CASE WHEN app_context_valid() THEN current_setting('app.user_id', true)::uuid END;
      END $$`);
    await db.query(`
      CREATE OR REPLACE FUNCTION app_role() RETURNS text LANGUAGE plpgsql STABLE SECURITY DEFINER ${SAFE_PATH} AS $$
      BEGIN
        RETURN CASE WHEN app_context_valid() THEN current_setting('app.role', true) ELSE 'none' END;
      END $$`);
    await db.query(`
      CREATE FUNCTION app_session_id() RETURNS uuid LANGUAGE plpgsql STABLE SECURITY DEFINER ${SAFE_PATH} AS $$
      BEGIN
        RETURN CASE WHEN app_context_valid() THEN current_setting('app.session_id', true)::uuid END;
      END $$`);
    // The store sets the policies read, each verifying the context once (not once per row scanned).
    const storeSet = (signature: string, body: string) =>
      db.query(`
        CREATE OR REPLACE FUNCTION ${signature} RETURNS uuid[] LANGUAGE plpgsql STABLE SECURITY DEFINER ${SAFE_PATH} AS $$
        DECLARE
          me uuid := app_user_id();
        BEGIN
          IF me IS NULL THEN
            RETURN '{}';
          END IF;
          RETURN ARRAY(${body});
        END $$`);
    await storeSet(
      'app_store_ids_with(p_permission text)',
      `SELECT id FROM stores WHERE owner_id = me
       UNION SELECT store_id FROM store_members WHERE user_id = me AND status = 'active' AND p_permission = ANY (permissions)`,
    );
    await storeSet(
      'app_staff_store_ids()',
      `SELECT id FROM stores WHERE owner_id = me UNION SELECT store_id FROM store_members WHERE user_id = me AND status = 'active'`,
    );
    await storeSet('app_managed_store_ids()', `SELECT id FROM stores WHERE owner_id = me`);
    await storeSet(
      'app_accessible_store_ids()',
      `SELECT id FROM stores WHERE owner_id = me
       UNION SELECT store_id FROM store_members WHERE user_id = me AND status = 'active'
       UNION SELECT store_id FROM users WHERE id = me AND role = 'customer' AND store_id IS NOT NULL`,
    );
    await storeSet('app_customer_ids()', `SELECT id FROM customers WHERE user_id = me`);

    // The binding of a request transaction: verifies the session and records who it is.
    await db.query(`
      CREATE FUNCTION app_bind_request(p_session uuid, p_proof text)
      RETURNS TABLE (user_id uuid, email text, role text)
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER ${SAFE_PATH} AS $$
      DECLARE
        found_user record;
      BEGIN
        PERFORM ${PRIVATE_SCHEMA}.clean_session();
        SELECT u.id, u.email, u.role INTO found_user FROM ${PRIVATE_SCHEMA}.user_of_session(p_session, p_proof) u;
        IF NOT FOUND THEN
          RETURN;
        END IF;
        PERFORM set_config('app.user_id', found_user.id::text, true), set_config('app.role', found_user.role, true),
                set_config('app.session_id', p_session::text, true),
                set_config('app.context', ${PRIVATE_SCHEMA}.context_mac(found_user.id::text, found_user.role, p_session::text), true);
        user_id := found_user.id;
        email := found_user.email;
        role := found_user.role;
        RETURN NEXT;
      END $$`);

    // The guards' one lookup: the session's user, and how it relates to the store a route names
    // (directly, as its only store, or as the store of a record). Nothing about a store or record the
    // caller has no relation to.
    await db.query(`
      CREATE FUNCTION app_authorize(p_session uuid, p_proof text, p_store uuid, p_resource text, p_record uuid, p_only_store boolean)
      RETURNS TABLE (user_id uuid, email text, role text, store_id uuid, relation text, permissions text[], record_owner uuid, store_count integer)
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER ${SAFE_PATH} AS $$
      DECLARE
        who record;
        target uuid := p_store;
        owner_of_record uuid;
        store_owner uuid;
        member_permissions text[];
        candidates uuid[];
      BEGIN
        PERFORM ${PRIVATE_SCHEMA}.clean_session();
        SELECT u.id, u.email, u.role, u.store_id INTO who FROM ${PRIVATE_SCHEMA}.user_of_session(p_session, p_proof) u;
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
      END $$`);

    // Every table: forced row-level security, nothing for requests unless granted below, all for the system.
    const tables: { name: string }[] = await db.query(
      `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname <> 'migrations' ORDER BY 1`,
    );
    const policies: { policyname: string; tablename: string }[] = await db.query(
      `SELECT policyname, tablename FROM pg_policies WHERE schemaname = 'public'`,
    );
    for (const { policyname, tablename } of policies) await db.query(`DROP POLICY ${policyname} ON ${tablename}`);
    for (const { name } of tables) {
      await db.query(`ALTER TABLE ${name} ENABLE ROW LEVEL SECURITY`);
      await db.query(`ALTER TABLE ${name} FORCE ROW LEVEL SECURITY`);
      await db.query(`REVOKE ALL ON ${name} FROM PUBLIC, ${RLS}`);
      await db.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ${name} TO ${SYS}`);
      await db.query(`CREATE POLICY ${name}_system ON ${name} TO ${SYS} USING (true) WITH CHECK (true)`);
    }
    await db.query(`REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM PUBLIC, ${RLS}`);
    await db.query(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO ${SYS}`);
    for (const { table, grants, policies: rules } of REQUEST_ACCESS) {
      for (const grant of grants) await db.query(`GRANT ${grant} ON ${table} TO ${RLS}`);
      for (const rule of rules) {
        const [, policy, rest] = /^(\S+) (.*)$/s.exec(rule)!;
        const [command, ...clauses] = rest.split(/ (?=USING|WITH CHECK)/);
        await db.query(`CREATE POLICY ${policy} ON ${table} ${command} TO ${RLS} ${clauses.join(' ')}`);
      }
    }

    // An order's number is the store's next one, given here at insert: nobody chooses it (a request
    // may not touch the counters at all), and a failed order rolls its number back with it.
    await db.query(`
      CREATE FUNCTION app_number_order() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER ${SAFE_PATH} AS $$
      DECLARE
        next_number bigint;
      BEGIN
        INSERT INTO store_order_counters (store_id, last_number) VALUES (NEW.store_id, 1001)
        ON CONFLICT (store_id) DO UPDATE SET last_number = store_order_counters.last_number + 1
        RETURNING last_number INTO next_number;
        NEW.order_number := next_number::text;
        RETURN NEW;
      END $$`);
    await db.query(`ALTER TABLE orders ALTER COLUMN order_number SET DEFAULT ''`);
    await db.query(`CREATE TRIGGER orders_number BEFORE INSERT ON orders FOR EACH ROW EXECUTE FUNCTION app_number_order()`);
    // An item's name and price are the catalog's at insert, whoever inserts it (the order's total is
    // checked against its items at commit: migration 1763801300000-order-stock-functions).
    await db.query(`
      CREATE FUNCTION app_price_order_item() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER ${SAFE_PATH} AS $$
      BEGIN
        IF NEW.product_id IS NOT NULL THEN
          SELECT p.name, p.price INTO NEW.name, NEW.price FROM products p WHERE p.id = NEW.product_id AND p.store_id = NEW.store_id;
          IF NOT FOUND THEN
            RAISE EXCEPTION 'order item % is not a product of the store', NEW.product_id USING ERRCODE = '23503';
          END IF;
        END IF;
        RETURN NEW;
      END $$`);
    await db.query(`CREATE TRIGGER order_items_price BEFORE INSERT ON order_items FOR EACH ROW EXECUTE FUNCTION app_price_order_item()`);
    // Covers are served as what they say they are: only PNGs may be stored.
    await db.query(`ALTER TABLE ai_images ADD CONSTRAINT ai_images_png CHECK (content_type = 'image/png')`);

    // The owner is a NOINHERIT member of the system role: it may hand a function over, but not change
    // it afterwards (a later migration that must, does so after SET ROLE to the system role).
    for (const fn of DEFINERS) {
      await db.query(`ALTER FUNCTION ${fn} ${SAFE_PATH}`);
      await db.query(`REVOKE ALL ON FUNCTION ${fn} FROM PUBLIC`);
      await db.query(`GRANT EXECUTE ON FUNCTION ${fn} TO ${RLS}, ${SYS}`);
      await db.query(`ALTER FUNCTION ${fn} OWNER TO ${SYS}`);
    }
    // Tables of later migrations are closed to requests until they grant; functions are nobody's by default.
    await db.query(`ALTER DEFAULT PRIVILEGES FOR ROLE ${OWNER_ROLE} IN SCHEMA public REVOKE ALL ON TABLES FROM ${RLS}`);
    await db.query(`ALTER DEFAULT PRIVILEGES FOR ROLE ${OWNER_ROLE} IN SCHEMA public REVOKE ALL ON SEQUENCES FROM ${RLS}`);
    await db.query(
      `ALTER DEFAULT PRIVILEGES FOR ROLE ${OWNER_ROLE} IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${SYS}`,
    );
    await db.query(`ALTER DEFAULT PRIVILEGES FOR ROLE ${OWNER_ROLE} IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO ${SYS}`);
    await db.query(`ALTER DEFAULT PRIVILEGES FOR ROLE ${OWNER_ROLE} REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC`);
  }

  async down(): Promise<void> {
    throw new Error('LeastPrivilege1763800800000 cannot be reverted: it would reopen every table to requests');
  }
}
