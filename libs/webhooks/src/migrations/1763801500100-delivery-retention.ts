import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the delivery retention sweep (DeliveryRetention) needs so that a batch costs its own rows, not
 * the table: finished deliveries by their last change, and deliveries by the delivery they redeliver.
 * The second also serves the foreign key's ON DELETE SET NULL, which otherwise scans the whole table
 * for every delivery deleted (also when a webhook is deleted with its deliveries).
 */
export class DeliveryRetention1763801500100 implements MigrationInterface {
  name = 'DeliveryRetention1763801500100';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE INDEX webhook_deliveries_finished_idx ON webhook_deliveries (updated_at) WHERE status <> 'pending'`);
    await db.query(`CREATE INDEX webhook_deliveries_redelivery_idx ON webhook_deliveries (redelivery_of) WHERE redelivery_of IS NOT NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX webhook_deliveries_redelivery_idx`);
    await db.query(`DROP INDEX webhook_deliveries_finished_idx`);
  }
}
