import type { MigrationInterface, QueryRunner } from 'typeorm';
import { asSystemRole } from '../roles.js';

/**
 * Idempotency keys belong to a caller (`idempotencyCaller`: `user:<id>` for a signed-in user), not to a
 * user id alone, so that another kind of principal gets keys of its own. The kept keys become their
 * users' (`user:<user_id>`), so a retry across the upgrade still replays. `user_id` stays: it is what
 * the `idempotency_keys_own` policy compares with the bound user.
 */
export class CoreIdempotencyCaller1763802200000 implements MigrationInterface {
  name = 'CoreIdempotencyCaller1763802200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE idempotency_keys ADD COLUMN caller text`);
    await asSystemRole(db, () => db.query(`UPDATE idempotency_keys SET caller = 'user:' || user_id`));
    await db.query(`ALTER TABLE idempotency_keys ALTER COLUMN caller SET NOT NULL`);
    await db.query(`ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey`);
    await db.query(`ALTER TABLE idempotency_keys ADD PRIMARY KEY (caller, key)`);
  }

  async down(db: QueryRunner): Promise<void> {
    // Keys of callers that are not users have no place in the table keyed by user: they are forgotten.
    await asSystemRole(db, () => db.query(`DELETE FROM idempotency_keys WHERE caller <> 'user:' || user_id`));
    await db.query(`ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey`);
    await db.query(`ALTER TABLE idempotency_keys ADD PRIMARY KEY (user_id, key)`);
    await db.query(`ALTER TABLE idempotency_keys DROP COLUMN caller`);
  }
}
