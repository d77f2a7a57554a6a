import type { MigrationInterface, QueryRunner } from 'typeorm';

/** What a store created before this migration is granted, once (the default STORE_WELCOME_CREDITS). */
const BACKFILL_CREDITS = 50;

/**
 * AI credits: one account row per store holding the balance (never below 0), and the append-only
 * ledger whose entries sum to it (grant and refund positive, charge negative). Staff read both
 * under row-level security; only the service writes, outside request transactions, except the
 * welcome grant at store creation, which goes through `app_open_credit_account` in the creating
 * transaction.
 */
export class Credits1763800600000 implements MigrationInterface {
  name = 'Credits1763800600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE credit_accounts (
        store_id uuid PRIMARY KEY REFERENCES stores(id) ON DELETE CASCADE,
        balance integer NOT NULL CHECK (balance >= 0),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await db.query(`
      CREATE TABLE credit_ledger (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        store_id uuid NOT NULL REFERENCES credit_accounts(store_id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('grant', 'charge', 'refund')),
        amount integer NOT NULL CHECK (CASE kind WHEN 'charge' THEN amount < 0 ELSE amount > 0 END),
        function text,
        reference text,
        refund_of uuid UNIQUE REFERENCES credit_ledger(id) ON DELETE CASCADE,
        created_by uuid,
        -- Milliseconds, as page cursors carry them: no entry can fall between two pages.
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        CHECK ((kind = 'refund') = (refund_of IS NOT NULL)),
        CHECK ((kind = 'grant') = (function IS NULL))
      )`);
    await db.query(`CREATE INDEX credit_ledger_store_idx ON credit_ledger (store_id, created_at DESC, id DESC)`);
    // The rolling-hour count of a function's charges.
    await db.query(`CREATE INDEX credit_ledger_usage_idx ON credit_ledger (store_id, function, created_at) WHERE kind = 'charge'`);
    await db.query(`
      CREATE FUNCTION credit_ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'credit_ledger is append-only';
      END $$`);
    await db.query(
      `CREATE TRIGGER credit_ledger_append_only BEFORE UPDATE ON credit_ledger FOR EACH ROW EXECUTE FUNCTION credit_ledger_append_only()`,
    );

    const staff = `(app_role() = 'admin' OR store_id = ANY ((SELECT app_staff_store_ids())::uuid[]))`;
    for (const table of ['credit_accounts', 'credit_ledger']) {
      await db.query(`ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`);
      await db.query(`CREATE POLICY ${table}_staff_read ON ${table} FOR SELECT USING (${staff})`);
      await db.query(`REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON ${table} FROM storefront_rls`);
    }

    // The welcome grant, from the transaction that creates the store (which runs as storefront_rls):
    // opens the account once, for its owner; a store that has one already gets nothing.
    await db.query(`
      CREATE FUNCTION app_open_credit_account(p_store uuid, p_amount integer) RETURNS void
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
      BEGIN
        IF p_amount < 0 THEN
          RAISE EXCEPTION 'welcome credits cannot be negative';
        END IF;
        IF app_role() IS DISTINCT FROM 'admin' AND NOT EXISTS (SELECT 1 FROM stores WHERE id = p_store AND owner_id = app_user_id()) THEN
          RAISE EXCEPTION 'only the store owner opens its credit account';
        END IF;
        INSERT INTO credit_accounts (store_id, balance) VALUES (p_store, p_amount) ON CONFLICT (store_id) DO NOTHING;
        IF FOUND AND p_amount > 0 THEN
          INSERT INTO credit_ledger (store_id, kind, amount, reference) VALUES (p_store, 'grant', p_amount, 'welcome');
        END IF;
      END $$`);
    await db.query(`REVOKE EXECUTE ON FUNCTION app_open_credit_account(uuid, integer) FROM PUBLIC`);
    await db.query(`GRANT EXECUTE ON FUNCTION app_open_credit_account(uuid, integer) TO storefront_rls`);

    await db.query(`INSERT INTO credit_accounts (store_id, balance) SELECT id, ${BACKFILL_CREDITS} FROM stores`);
    await db.query(
      `INSERT INTO credit_ledger (store_id, kind, amount, reference) SELECT store_id, 'grant', balance, 'welcome' FROM credit_accounts`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP FUNCTION app_open_credit_account(uuid, integer)`);
    await db.query(`DROP TABLE credit_ledger`);
    await db.query(`DROP TABLE credit_accounts`);
    await db.query(`DROP FUNCTION credit_ledger_append_only()`);
  }
}
