import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks, their deliveries (one per event × webhook, plus redeliveries), each delivery's attempts,
 * and merchant notifications. Staff of a store (owner, admin, active member) see its rows; the
 * `webhooks` permission is checked by the guard. Secrets are stored sealed (AES-256-GCM).
 */
export class Webhooks1763800400000 implements MigrationInterface {
  name = 'Webhooks1763800400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE webhooks (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        url text NOT NULL,
        events text[] NOT NULL,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
        disabled_reason text,
        secret_sealed text NOT NULL,
        secret_hint text NOT NULL,
        previous_secret_sealed text,
        previous_secret_expires_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX webhooks_store_idx ON webhooks (store_id, created_at DESC, id DESC)`);
    await db.query(`
      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        webhook_id uuid NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        event_id uuid NOT NULL,
        event text NOT NULL,
        body text NOT NULL,
        redelivery_of uuid REFERENCES webhook_deliveries(id) ON DELETE SET NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed', 'cancelled')),
        attempt_count integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz DEFAULT now(),
        last_status_code integer,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // An event is delivered to a webhook once, however often the outbox republishes it.
    await db.query(`CREATE UNIQUE INDEX webhook_deliveries_once ON webhook_deliveries (event_id, webhook_id) WHERE redelivery_of IS NULL`);
    await db.query(`CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, created_at DESC, id DESC)`);
    await db.query(`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`);
    await db.query(`
      CREATE TABLE webhook_attempts (
        id bigserial PRIMARY KEY,
        delivery_id uuid NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        attempt integer NOT NULL,
        started_at timestamptz NOT NULL,
        duration_ms integer NOT NULL,
        status_code integer,
        error text,
        response_excerpt text,
        next_attempt_at timestamptz,
        UNIQUE (delivery_id, attempt)
      )`);
    await db.query(`
      CREATE TABLE merchant_notifications (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        kind text NOT NULL,
        message text NOT NULL,
        data jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX merchant_notifications_store_idx ON merchant_notifications (store_id, created_at DESC, id DESC)`);

    const staff = `(app_role() = 'admin' OR store_id = ANY ((SELECT app_staff_store_ids())::uuid[]))`;
    for (const table of ['webhooks', 'webhook_deliveries', 'webhook_attempts', 'merchant_notifications']) {
      await db.query(`ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`);
      await db.query(`CREATE POLICY ${table}_staff ON ${table} FOR ALL USING (${staff}) WITH CHECK (${staff})`);
    }
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of ['merchant_notifications', 'webhook_attempts', 'webhook_deliveries', 'webhooks'])
      await db.query(`DROP TABLE ${table}`);
  }
}
