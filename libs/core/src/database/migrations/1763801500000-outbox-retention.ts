import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Dispatched outbox events by when they were dispatched, for the retention sweep (OutboxRetention):
 * each batch reads the oldest of them instead of scanning the table. Partial, so the relay's pending
 * events cost it nothing until they are dispatched.
 */
export class OutboxRetention1763801500000 implements MigrationInterface {
  name = 'OutboxRetention1763801500000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE INDEX outbox_events_dispatched_idx ON outbox_events (dispatched_at) WHERE dispatched_at IS NOT NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX outbox_events_dispatched_idx`);
  }
}
