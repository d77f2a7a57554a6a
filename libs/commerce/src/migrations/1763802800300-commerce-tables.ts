import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Commerce's tables: stores, their members and API keys, products, customers, orders with their items
 * and number counters (and the trigram extension the customer search uses).
 *
 * Tables, columns, constraints and indexes only: their functions, triggers, row-level security,
 * policies and grants are the current state declared in ../sql/, applied after the migrations.
 */
export class CommerceTables1763802800300 implements MigrationInterface {
  name = 'CommerceTables1763802800300';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await db.query(`
      CREATE TABLE customers (
          id uuid DEFAULT gen_random_uuid() NOT NULL,
          store_id uuid NOT NULL,
          user_id uuid,
          name text NOT NULL,
          email text NOT NULL,
          phone text,
          created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, now()) NOT NULL,
          updated_at timestamp with time zone DEFAULT now() NOT NULL
      )`);
    await db.query(`
      CREATE TABLE order_items (
          id uuid DEFAULT gen_random_uuid() NOT NULL,
          order_id uuid NOT NULL,
          store_id uuid NOT NULL,
          product_id uuid,
          "position" integer NOT NULL,
          name text NOT NULL,
          quantity integer NOT NULL,
          price numeric(12,2) NOT NULL,
          CONSTRAINT order_items_price_check CHECK ((price >= (0)::numeric)),
          CONSTRAINT order_items_quantity_check CHECK ((quantity > 0))
      )`);
    await db.query(`
      CREATE TABLE orders (
          id uuid DEFAULT gen_random_uuid() NOT NULL,
          store_id uuid NOT NULL,
          order_number text DEFAULT ''::text NOT NULL,
          customer_id uuid,
          status text DEFAULT 'pending'::text NOT NULL,
          currency character(3) NOT NULL,
          total numeric(14,2) NOT NULL,
          placed_by uuid,
          created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, now()) NOT NULL,
          updated_at timestamp with time zone DEFAULT now() NOT NULL,
          stock_taken boolean DEFAULT false NOT NULL,
          stock_returned boolean DEFAULT false NOT NULL,
          CONSTRAINT orders_status_check CHECK ((status = ANY
            (ARRAY['pending'::text, 'paid'::text, 'shipped'::text, 'delivered'::text, 'cancelled'::text,
              'refunded'::text]))),
          CONSTRAINT orders_total_check CHECK ((total >= (0)::numeric))
      )`);
    await db.query(`
      CREATE TABLE products (
          id uuid DEFAULT gen_random_uuid() NOT NULL,
          store_id uuid NOT NULL,
          name text NOT NULL,
          description text,
          price numeric(12,2) NOT NULL,
          compare_price numeric(12,2),
          category text,
          seo_keywords text[] DEFAULT '{}'::text[] NOT NULL,
          status text DEFAULT 'draft'::text NOT NULL,
          inventory_quantity integer DEFAULT 0 NOT NULL,
          created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, now()) NOT NULL,
          updated_at timestamp with time zone DEFAULT now() NOT NULL,
          CONSTRAINT products_check CHECK ((compare_price >= price)),
          CONSTRAINT products_inventory_quantity_check CHECK ((inventory_quantity >= 0)),
          CONSTRAINT products_price_check CHECK ((price >= (0)::numeric)),
          CONSTRAINT products_status_check CHECK ((status = ANY
            (ARRAY['draft'::text, 'active'::text, 'archived'::text])))
      )`);
    await db.query(`
      CREATE TABLE store_api_keys (
          id uuid DEFAULT gen_random_uuid() NOT NULL,
          store_id uuid NOT NULL,
          name text NOT NULL,
          prefix text NOT NULL,
          secret_hash bytea NOT NULL,
          permissions text[] NOT NULL,
          created_by uuid,
          created_at timestamp with time zone DEFAULT now() NOT NULL,
          expires_at timestamp with time zone,
          last_used_at timestamp with time zone,
          revoked_at timestamp with time zone,
          CONSTRAINT store_api_keys_name_check CHECK (((char_length(name) >= 1) AND (char_length(name) <= 100))),
          CONSTRAINT store_api_keys_permissions_check CHECK (((cardinality(permissions) > 0)
            AND (permissions <@ ARRAY['catalog'::text, 'orders'::text, 'customers'::text, 'ai'::text, 'social'::text,
              'webhooks'::text, 'billing'::text]))),
          CONSTRAINT store_api_keys_secret_hash_check CHECK ((octet_length(secret_hash) = 32))
      )`);
    await db.query(`
      CREATE TABLE store_members (
          id uuid DEFAULT gen_random_uuid() NOT NULL,
          store_id uuid NOT NULL,
          email text NOT NULL,
          user_id uuid,
          permissions text[] DEFAULT '{}'::text[] NOT NULL,
          status text DEFAULT 'invited'::text NOT NULL,
          invite_token_hash bytea,
          invite_expires_at timestamp with time zone,
          invited_by uuid,
          accepted_at timestamp with time zone,
          created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, now()) NOT NULL,
          updated_at timestamp with time zone DEFAULT now() NOT NULL,
          invite_link_hash bytea,
          CONSTRAINT store_members_status_check CHECK ((status = ANY (ARRAY['invited'::text, 'active'::text])))
      )`);
    await db.query(`
      CREATE TABLE store_order_counters (
          store_id uuid NOT NULL,
          last_number bigint NOT NULL
      )`);
    await db.query(`
      CREATE TABLE stores (
          id uuid DEFAULT gen_random_uuid() NOT NULL,
          owner_id uuid NOT NULL,
          name text NOT NULL,
          currency character(3) DEFAULT 'USD'::bpchar NOT NULL,
          default_language text DEFAULT 'en'::text NOT NULL,
          timezone text DEFAULT 'UTC'::text NOT NULL,
          created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, now()) NOT NULL,
          updated_at timestamp with time zone DEFAULT now() NOT NULL
      )`);
    await db.query(`
      ALTER TABLE customers
          ADD CONSTRAINT customers_pkey PRIMARY KEY (id)`);
    await db.query(`
      ALTER TABLE customers
          ADD CONSTRAINT customers_user_id_key UNIQUE (user_id)`);
    await db.query(`
      ALTER TABLE order_items
          ADD CONSTRAINT order_items_pkey PRIMARY KEY (id)`);
    await db.query(`
      ALTER TABLE orders
          ADD CONSTRAINT orders_pkey PRIMARY KEY (id)`);
    await db.query(`
      ALTER TABLE orders
          ADD CONSTRAINT orders_store_id_order_number_key UNIQUE (store_id, order_number)`);
    await db.query(`
      ALTER TABLE products
          ADD CONSTRAINT products_pkey PRIMARY KEY (id)`);
    await db.query(`
      ALTER TABLE store_api_keys
          ADD CONSTRAINT store_api_keys_pkey PRIMARY KEY (id)`);
    await db.query(`
      ALTER TABLE store_api_keys
          ADD CONSTRAINT store_api_keys_secret_hash_key UNIQUE (secret_hash)`);
    await db.query(`
      ALTER TABLE store_members
          ADD CONSTRAINT store_members_invite_link_hash_key UNIQUE (invite_link_hash)`);
    await db.query(`
      ALTER TABLE store_members
          ADD CONSTRAINT store_members_invite_token_hash_key UNIQUE (invite_token_hash)`);
    await db.query(`
      ALTER TABLE store_members
          ADD CONSTRAINT store_members_pkey PRIMARY KEY (id)`);
    await db.query(`
      ALTER TABLE store_order_counters
          ADD CONSTRAINT store_order_counters_pkey PRIMARY KEY (store_id)`);
    await db.query(`
      ALTER TABLE stores
          ADD CONSTRAINT stores_pkey PRIMARY KEY (id)`);
    await db.query(`CREATE UNIQUE INDEX customers_email_key ON customers USING btree (store_id, lower(email))`);
    await db.query(`CREATE INDEX customers_search_idx ON customers USING gin (name gin_trgm_ops, email gin_trgm_ops)`);
    await db.query(
      `CREATE INDEX customers_store_page_idx ON customers USING btree (store_id, created_at DESC, id DESC)`,
    );
    await db.query(`CREATE INDEX order_items_order_idx ON order_items USING btree (order_id, "position")`);
    await db.query(`CREATE INDEX orders_customer_idx ON orders USING btree (customer_id, created_at DESC, id DESC)`);
    await db.query(`CREATE INDEX orders_store_page_idx ON orders USING btree (store_id, created_at DESC, id DESC)`);
    await db.query(
      `CREATE INDEX orders_store_status_page_idx ON orders USING btree (store_id, status, created_at DESC, id DESC)`,
    );
    await db.query(`CREATE INDEX products_store_page_idx ON products USING btree (store_id, created_at DESC, id DESC)`);
    await db.query(
      `CREATE INDEX store_api_keys_store_idx ON store_api_keys USING btree (store_id, created_at DESC, id DESC)`,
    );
    await db.query(`CREATE UNIQUE INDEX store_members_email_key ON store_members USING btree (store_id, lower(email))`);
    await db.query(
      `CREATE INDEX store_members_user_idx ON store_members USING btree (user_id) WHERE (status = 'active'::text)`,
    );
    await db.query(`CREATE INDEX stores_owner_idx ON stores USING btree (owner_id)`);
    await db.query(`CREATE INDEX stores_page_idx ON stores USING btree (created_at DESC, id DESC)`);
    await db.query(`
      ALTER TABLE customers
          ADD CONSTRAINT customers_store_id_fkey FOREIGN KEY (store_id) REFERENCES stores(id) ON DELETE CASCADE`);
    await db.query(`
      ALTER TABLE customers
          ADD CONSTRAINT customers_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE SET NULL`);
    await db.query(`
      ALTER TABLE order_items
          ADD CONSTRAINT order_items_order_id_fkey FOREIGN KEY (order_id) REFERENCES orders(id) ON DELETE CASCADE`);
    await db.query(`
      ALTER TABLE order_items
          ADD CONSTRAINT order_items_product_id_fkey FOREIGN KEY (product_id) REFERENCES products(id)
            ON DELETE SET NULL`);
    await db.query(`
      ALTER TABLE order_items
          ADD CONSTRAINT order_items_store_id_fkey FOREIGN KEY (store_id) REFERENCES stores(id) ON DELETE CASCADE`);
    await db.query(`
      ALTER TABLE orders
          ADD CONSTRAINT orders_customer_id_fkey FOREIGN KEY (customer_id) REFERENCES customers(id)
            ON DELETE SET NULL`);
    await db.query(`
      ALTER TABLE orders
          ADD CONSTRAINT orders_placed_by_fkey FOREIGN KEY (placed_by) REFERENCES users(id) ON DELETE SET NULL`);
    await db.query(`
      ALTER TABLE orders
          ADD CONSTRAINT orders_store_id_fkey FOREIGN KEY (store_id) REFERENCES stores(id) ON DELETE CASCADE`);
    await db.query(`
      ALTER TABLE products
          ADD CONSTRAINT products_store_id_fkey FOREIGN KEY (store_id) REFERENCES stores(id) ON DELETE CASCADE`);
    await db.query(`
      ALTER TABLE store_api_keys
          ADD CONSTRAINT store_api_keys_created_by_fkey FOREIGN KEY (created_by) REFERENCES users(id)
            ON DELETE SET NULL`);
    await db.query(`
      ALTER TABLE store_api_keys
          ADD CONSTRAINT store_api_keys_store_id_fkey FOREIGN KEY (store_id) REFERENCES stores(id) ON DELETE CASCADE`);
    await db.query(`
      ALTER TABLE store_members
          ADD CONSTRAINT store_members_invited_by_fkey FOREIGN KEY (invited_by) REFERENCES users(id)
            ON DELETE SET NULL`);
    await db.query(`
      ALTER TABLE store_members
          ADD CONSTRAINT store_members_store_id_fkey FOREIGN KEY (store_id) REFERENCES stores(id) ON DELETE CASCADE`);
    await db.query(`
      ALTER TABLE store_members
          ADD CONSTRAINT store_members_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`);
    await db.query(`
      ALTER TABLE store_order_counters
          ADD CONSTRAINT store_order_counters_store_id_fkey FOREIGN KEY (store_id) REFERENCES stores(id)
            ON DELETE CASCADE`);
    await db.query(`
      ALTER TABLE stores
          ADD CONSTRAINT stores_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES users(id)`);
    await db.query(`
      ALTER TABLE users
          ADD CONSTRAINT users_store_fk FOREIGN KEY (store_id) REFERENCES stores(id) ON DELETE CASCADE`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(
      `DROP TABLE stores, store_order_counters, store_members, ` +
        `store_api_keys, products, orders, order_items, customers CASCADE`,
    );
  }
}
