import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks' tables: webhooks, their deliveries and attempts.
 *
 * Tables, columns, constraints and indexes only: their functions, triggers, row-level security,
 * policies and grants are the current state declared in ../sql/, applied after the migrations.
 */
export class WebhooksTables1763802800400 implements MigrationInterface {
  name = 'WebhooksTables1763802800400';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE webhook_attempts (
          id bigint NOT NULL,
          delivery_id uuid NOT NULL,
          store_id uuid NOT NULL,
          attempt integer NOT NULL,
          started_at timestamp with time zone NOT NULL,
          duration_ms integer NOT NULL,
          status_code integer,
          error text,
          response_excerpt text,
          next_attempt_at timestamp with time zone
      )`);
    await db.query(`
      CREATE SEQUENCE webhook_attempts_id_seq
          START WITH 1
          INCREMENT BY 1
          NO MINVALUE
          NO MAXVALUE
          CACHE 1`);
    await db.query(`ALTER SEQUENCE webhook_attempts_id_seq OWNED BY webhook_attempts.id`);
    await db.query(`
      CREATE TABLE webhook_deliveries (
          id uuid DEFAULT gen_random_uuid() NOT NULL,
          webhook_id uuid NOT NULL,
          store_id uuid NOT NULL,
          event_id uuid NOT NULL,
          event text NOT NULL,
          body text NOT NULL,
          redelivery_of uuid,
          status text DEFAULT 'pending'::text NOT NULL,
          attempt_count integer DEFAULT 0 NOT NULL,
          next_attempt_at timestamp with time zone DEFAULT now(),
          last_status_code integer,
          created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, now()) NOT NULL,
          updated_at timestamp with time zone DEFAULT now() NOT NULL,
          parked_at timestamp with time zone,
          CONSTRAINT webhook_deliveries_status_check CHECK ((status = ANY
            (ARRAY['pending'::text, 'succeeded'::text, 'failed'::text, 'cancelled'::text, 'skipped'::text])))
      )`);
    await db.query(`
      CREATE TABLE webhooks (
          id uuid DEFAULT gen_random_uuid() NOT NULL,
          store_id uuid NOT NULL,
          url text NOT NULL,
          events text[] NOT NULL,
          status text DEFAULT 'active'::text NOT NULL,
          disabled_reason text,
          secret_sealed text NOT NULL,
          secret_hint text NOT NULL,
          previous_secret_sealed text,
          previous_secret_expires_at timestamp with time zone,
          created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, now()) NOT NULL,
          updated_at timestamp with time zone DEFAULT now() NOT NULL,
          CONSTRAINT webhooks_status_check CHECK ((status = ANY (ARRAY['active'::text, 'disabled'::text])))
      )`);
    await db.query(
      `ALTER TABLE webhook_attempts ALTER COLUMN id SET DEFAULT nextval('webhook_attempts_id_seq'::regclass)`,
    );
    await db.query(`
      ALTER TABLE webhook_attempts
          ADD CONSTRAINT webhook_attempts_delivery_id_attempt_key UNIQUE (delivery_id, attempt)`);
    await db.query(`
      ALTER TABLE webhook_attempts
          ADD CONSTRAINT webhook_attempts_pkey PRIMARY KEY (id)`);
    await db.query(`
      ALTER TABLE webhook_deliveries
          ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id)`);
    await db.query(`
      ALTER TABLE webhooks
          ADD CONSTRAINT webhooks_pkey PRIMARY KEY (id)`);
    await db.query(
      `CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries ` +
        `USING btree (next_attempt_at) WHERE (status = 'pending'::text)`,
    );
    await db.query(
      `CREATE INDEX webhook_deliveries_finished_idx ON webhook_deliveries ` +
        `USING btree (updated_at) WHERE (status <> 'pending'::text)`,
    );
    await db.query(
      `CREATE UNIQUE INDEX webhook_deliveries_once ON webhook_deliveries ` +
        `USING btree (event_id, webhook_id) WHERE (redelivery_of IS NULL)`,
    );
    await db.query(
      `CREATE INDEX webhook_deliveries_parked_idx ON webhook_deliveries USING btree ` +
        `(webhook_id) WHERE ((status = 'pending'::text) AND (parked_at IS NOT NULL))`,
    );
    await db.query(
      `CREATE INDEX webhook_deliveries_redelivery_idx ON webhook_deliveries ` +
        `USING btree (redelivery_of) WHERE (redelivery_of IS NOT NULL)`,
    );
    await db.query(
      `CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries ` +
        `USING btree (webhook_id, created_at DESC, id DESC)`,
    );
    await db.query(`CREATE INDEX webhooks_store_idx ON webhooks USING btree (store_id, created_at DESC, id DESC)`);
    await db.query(`
      ALTER TABLE webhook_attempts
          ADD CONSTRAINT webhook_attempts_delivery_id_fkey FOREIGN KEY (delivery_id) REFERENCES webhook_deliveries(id)
            ON DELETE CASCADE`);
    await db.query(`
      ALTER TABLE webhook_attempts
          ADD CONSTRAINT webhook_attempts_store_id_fkey FOREIGN KEY (store_id) REFERENCES stores(id)
            ON DELETE CASCADE`);
    await db.query(`
      ALTER TABLE webhook_deliveries
          ADD CONSTRAINT webhook_deliveries_redelivery_of_fkey FOREIGN KEY (redelivery_of)
            REFERENCES webhook_deliveries(id) ON DELETE SET NULL`);
    await db.query(`
      ALTER TABLE webhook_deliveries
          ADD CONSTRAINT webhook_deliveries_store_id_fkey FOREIGN KEY (store_id) REFERENCES stores(id)
            ON DELETE CASCADE`);
    await db.query(`
      ALTER TABLE webhook_deliveries
          ADD CONSTRAINT webhook_deliveries_webhook_id_fkey FOREIGN KEY (webhook_id) REFERENCES webhooks(id)
            ON DELETE CASCADE`);
    await db.query(`
      ALTER TABLE webhooks
          ADD CONSTRAINT webhooks_store_id_fkey FOREIGN KEY (store_id) REFERENCES stores(id) ON DELETE CASCADE`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE webhooks, webhook_deliveries, webhook_attempts CASCADE`);
  }
}
