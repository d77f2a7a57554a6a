import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Core's tables: the private schema with the installation row, the transactional outbox and its
 * acknowledgements, idempotency keys; and the record of the sql/ files last applied.
 *
 * Tables, columns, constraints and indexes only: their functions, triggers, row-level security,
 * policies and grants are the current state declared in ../sql/, applied after the migrations.
 */
export class CoreTables1763802800100 implements MigrationInterface {
  name = 'CoreTables1763802800100';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE SCHEMA storefront_private`);
    await db.query(`
      CREATE TABLE storefront_private.declared_sql (
          id boolean DEFAULT true NOT NULL PRIMARY KEY CHECK (id),
          digest text NOT NULL,
          applied_at timestamp with time zone DEFAULT now() NOT NULL
      )`);
    await db.query(`
      CREATE TABLE idempotency_keys (
          user_id uuid NOT NULL,
          key text NOT NULL,
          route text NOT NULL,
          fingerprint text NOT NULL,
          state text DEFAULT 'pending'::text NOT NULL,
          created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
          response_status smallint,
          response_headers jsonb,
          response_body bytea,
          caller text NOT NULL,
          CONSTRAINT idempotency_keys_answer CHECK (((state = 'pending'::text)
            OR ((response_status IS NOT NULL) AND (response_headers IS NOT NULL) AND (response_body IS NOT NULL)))),
          CONSTRAINT idempotency_keys_state_check CHECK ((state = ANY (ARRAY['pending'::text, 'done'::text])))
      )`);
    await db.query(`
      CREATE TABLE outbox_events (
          id uuid DEFAULT gen_random_uuid() NOT NULL,
          store_id uuid NOT NULL,
          event text NOT NULL,
          data jsonb NOT NULL,
          created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
          dispatched_at timestamp with time zone,
          actor jsonb
      )`);
    await db.query(`
      CREATE TABLE outbox_owed_acks (
          publication_id uuid NOT NULL,
          subscriber text NOT NULL,
          event_ids uuid[] NOT NULL,
          due_at timestamp with time zone NOT NULL,
          publications integer DEFAULT 1 NOT NULL,
          created_at timestamp with time zone DEFAULT now() NOT NULL
      )`);
    await db.query(`
      CREATE TABLE storefront_private.installation (
          id boolean DEFAULT true NOT NULL,
          binding_key bytea NOT NULL,
          binding_ipad bytea NOT NULL,
          binding_opad bytea NOT NULL,
          session_max_age interval NOT NULL,
          welcome_credits integer DEFAULT 50 NOT NULL,
          ai_hourly_limits jsonb DEFAULT '{}'::jsonb NOT NULL,
          ai_credit_costs jsonb DEFAULT '{}'::jsonb NOT NULL,
          CONSTRAINT installation_id_check CHECK (id),
          CONSTRAINT installation_welcome_credits_check CHECK ((welcome_credits >= 0))
      )`);
    await db.query(`
      ALTER TABLE idempotency_keys
          ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (caller, key)`);
    await db.query(`
      ALTER TABLE outbox_events
          ADD CONSTRAINT outbox_events_pkey PRIMARY KEY (id)`);
    await db.query(`
      ALTER TABLE outbox_owed_acks
          ADD CONSTRAINT outbox_owed_acks_pkey PRIMARY KEY (publication_id, subscriber)`);
    await db.query(`
      ALTER TABLE storefront_private.installation
          ADD CONSTRAINT installation_pkey PRIMARY KEY (id)`);
    await db.query(`CREATE INDEX idempotency_keys_created_idx ON idempotency_keys USING btree (created_at)`);
    await db.query(
      `CREATE INDEX outbox_events_dispatched_idx ON outbox_events ` +
        `USING btree (dispatched_at) WHERE (dispatched_at IS NOT NULL)`,
    );
    await db.query(
      `CREATE INDEX outbox_events_pending_idx ON outbox_events USING btree (created_at) WHERE (dispatched_at IS NULL)`,
    );
    await db.query(`CREATE INDEX outbox_events_store_idx ON outbox_events USING btree (store_id, created_at, id)`);
    await db.query(`CREATE INDEX outbox_owed_acks_due_idx ON outbox_owed_acks USING btree (due_at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(
      `DROP TABLE storefront_private.installation, outbox_owed_acks, outbox_events, idempotency_keys CASCADE`,
    );
    await db.query(`DROP SCHEMA storefront_private CASCADE`);
  }
}
