import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The transactional outbox: domain events written in the same transaction as the change that
 * causes them. Row-level security is on with no policy here, so request transactions cannot write
 * it until the store context adds its rule (commerce migrations); the relay reads it as the owner.
 */
export class CoreOutbox1763800050000 implements MigrationInterface {
  name = 'CoreOutbox1763800050000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE outbox_events (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        store_id uuid NOT NULL,
        event text NOT NULL,
        data jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        dispatched_at timestamptz
      )`);
    await db.query(`CREATE INDEX outbox_events_pending_idx ON outbox_events (created_at) WHERE dispatched_at IS NULL`);
    // NOTIFY is delivered at commit and dropped on rollback: the relay hears of committed events only.
    await db.query(`
      CREATE FUNCTION outbox_events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('outbox_events', NEW.id::text);
        RETURN NULL;
      END $$`);
    await db.query(
      `CREATE TRIGGER outbox_events_notify AFTER INSERT ON outbox_events FOR EACH ROW EXECUTE FUNCTION outbox_events_notify()`,
    );
    await db.query(`ALTER TABLE outbox_events ENABLE ROW LEVEL SECURITY`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE outbox_events');
    await db.query('DROP FUNCTION outbox_events_notify()');
  }
}
