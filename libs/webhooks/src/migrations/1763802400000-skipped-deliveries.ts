import type { MigrationInterface, QueryRunner } from 'typeorm';
import { asSystemRole } from '@app/core';

const BEFORE = ['pending', 'succeeded', 'failed', 'cancelled'];
/** The status CHECK of webhook_deliveries allowing `statuses`. */
const statusCheck = (statuses: string[]) =>
  `ADD CONSTRAINT webhook_deliveries_status_check CHECK (status IN (${statuses.map((s) => `'${s}'`).join(', ')}))`;

/**
 * A delivery may be `skipped`: an event of a kind a disabled webhook subscribes to, recorded for it
 * while it is disabled (nothing sent), so that `recover` can send it once the webhook is enabled again.
 * Reverting turns skipped deliveries into cancelled ones, which `recover` re-sent before this migration.
 */
export class SkippedDeliveries1763802400000 implements MigrationInterface {
  name = 'SkippedDeliveries1763802400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_status_check`);
    await db.query(`ALTER TABLE webhook_deliveries ${statusCheck([...BEFORE, 'skipped'])}`);
  }

  async down(db: QueryRunner): Promise<void> {
    // Row-level security is forced on the owner, which has no policy: the system role moves the rows.
    await asSystemRole(db, () =>
      db.query(`UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL WHERE status = 'skipped'`),
    );
    await db.query(`ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_status_check`);
    await db.query(`ALTER TABLE webhook_deliveries ${statusCheck(BEFORE)}`);
  }
}
