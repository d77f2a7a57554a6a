import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Billing's tables: a credit account per store and its ledger.
 *
 * Tables, columns, constraints and indexes only: their functions, triggers, row-level security,
 * policies and grants are the current state declared in ../sql/, applied after the migrations.
 */
export class BillingTables1763802800500 implements MigrationInterface {
  name = 'BillingTables1763802800500';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE credit_accounts (
          store_id uuid NOT NULL,
          balance integer NOT NULL,
          updated_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
          CONSTRAINT credit_accounts_balance_check CHECK ((balance >= 0))
      )`);
    await db.query(`
      CREATE TABLE credit_ledger (
          id uuid DEFAULT gen_random_uuid() NOT NULL,
          store_id uuid NOT NULL,
          kind text NOT NULL,
          amount integer NOT NULL,
          function text,
          reference text,
          refund_of uuid,
          created_by uuid,
          created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, clock_timestamp()) NOT NULL,
          api_key_id uuid,
          CONSTRAINT credit_ledger_check CHECK (
      CASE kind
          WHEN 'charge'::text THEN (amount < 0)
          ELSE (amount > 0)
      END),
          CONSTRAINT credit_ledger_check1 CHECK (((kind = 'refund'::text) = (refund_of IS NOT NULL))),
          CONSTRAINT credit_ledger_check2 CHECK (((kind = 'grant'::text) = (function IS NULL))),
          CONSTRAINT credit_ledger_kind_check CHECK ((kind = ANY
            (ARRAY['grant'::text, 'charge'::text, 'refund'::text]))),
          CONSTRAINT credit_ledger_one_actor CHECK (((created_by IS NULL) OR (api_key_id IS NULL)))
      )`);
    await db.query(`
      ALTER TABLE credit_accounts
          ADD CONSTRAINT credit_accounts_pkey PRIMARY KEY (store_id)`);
    await db.query(`
      ALTER TABLE credit_ledger
          ADD CONSTRAINT credit_ledger_pkey PRIMARY KEY (id)`);
    await db.query(`
      ALTER TABLE credit_ledger
          ADD CONSTRAINT credit_ledger_refund_of_key UNIQUE (refund_of)`);
    await db.query(
      `CREATE INDEX credit_ledger_store_idx ON credit_ledger USING btree (store_id, created_at DESC, id DESC)`,
    );
    await db.query(
      `CREATE INDEX credit_ledger_usage_idx ON credit_ledger USING btree ` +
        `(store_id, function, created_at) WHERE (kind = 'charge'::text)`,
    );
    await db.query(`
      ALTER TABLE credit_accounts
          ADD CONSTRAINT credit_accounts_store_id_fkey FOREIGN KEY (store_id) REFERENCES stores(id) ON DELETE CASCADE`);
    await db.query(`
      ALTER TABLE credit_ledger
          ADD CONSTRAINT credit_ledger_refund_of_fkey FOREIGN KEY (refund_of) REFERENCES credit_ledger(id)
            ON DELETE CASCADE`);
    await db.query(`
      ALTER TABLE credit_ledger
          ADD CONSTRAINT credit_ledger_store_id_fkey FOREIGN KEY (store_id) REFERENCES credit_accounts(store_id)
            ON DELETE CASCADE`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE credit_ledger, credit_accounts CASCADE`);
  }
}
