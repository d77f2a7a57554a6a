import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A store's orders of one status, newest first (`GET /stores/{id}/orders?status=`), read from an
 * index of their own. Through the store's page index a page of a rare status read every order newer
 * than its 21st match: the whole store when it has fewer. Both columns compare with leakproof
 * operators, so the index serves requests under row-level security. Status changes can no longer be
 * HOT updates (the status is indexed now): one more index entry per change.
 */
export class OrdersByStatus1763801500300 implements MigrationInterface {
  name = 'OrdersByStatus1763801500300';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE INDEX orders_store_status_page_idx ON orders (store_id, status, created_at DESC, id DESC)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX orders_store_status_page_idx`);
  }
}
