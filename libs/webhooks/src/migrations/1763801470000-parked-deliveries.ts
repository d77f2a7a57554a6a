import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A delivery whose attempt is due while its webhook's slots are taken or its circuit is open waits in
 * the delivery gate (Redis) rather than in the queue; `parked_at` (set by the sweep) says so in
 * PostgreSQL, so the lost-job sweep leaves it to the gate and, should Redis lose the gate, knows which
 * deliveries to enqueue again.
 * The system role's table grants and policies cover the new column; requests may read it (their grant
 * on the table) but not change it (their UPDATE is limited to other columns).
 */
export class ParkedDeliveries1763801470000 implements MigrationInterface {
  name = 'ParkedDeliveries1763801470000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE webhook_deliveries ADD COLUMN parked_at timestamptz`);
    await db.query(
      `CREATE INDEX webhook_deliveries_parked_idx ON webhook_deliveries (webhook_id) WHERE status = 'pending' AND parked_at IS NOT NULL`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX webhook_deliveries_parked_idx`);
    await db.query(`ALTER TABLE webhook_deliveries DROP COLUMN parked_at`);
  }
}
