import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency keys keep the first answer as it was sent: its status, the headers a replay must repeat
 * and the body's exact bytes. The jsonb column it replaces gave the JSON back re-serialised, its keys
 * in jsonb's order rather than the answer's.
 *
 * The request role reaches the new columns through its table-wide grants on idempotency_keys (the
 * least-privilege migration's REQUEST_ACCESS), which cover every column, later ones included, under
 * the same `idempotency_keys_own` policy: no column grant to add.
 */
export class CoreIdempotencyExactAnswers1763801400000 implements MigrationInterface {
  name = 'CoreIdempotencyExactAnswers1763801400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE idempotency_keys
        ADD COLUMN response_status smallint,
        ADD COLUMN response_headers jsonb,
        ADD COLUMN response_body bytea`);
    // Answers kept before: every idempotent route answers 200 JSON; their original bytes are gone, so
    // a replay of one of them gives jsonb's text of it (the same JSON, formatted differently).
    await db.query(`
      UPDATE idempotency_keys
         SET response_status = 200,
             response_headers = '{"content-type": "application/json; charset=utf-8"}',
             response_body = convert_to(coalesce(response::text, 'null'), 'UTF8')
       WHERE state = 'done'`);
    await db.query(`ALTER TABLE idempotency_keys DROP COLUMN response`);
    await db.query(`
      ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_answer
        CHECK (state = 'pending' OR (response_status IS NOT NULL AND response_headers IS NOT NULL AND response_body IS NOT NULL))`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_answer`);
    await db.query(`ALTER TABLE idempotency_keys ADD COLUMN response jsonb`);
    await db.query(`UPDATE idempotency_keys SET response = convert_from(response_body, 'UTF8')::jsonb WHERE state = 'done'`);
    await db.query(`ALTER TABLE idempotency_keys DROP COLUMN response_status, DROP COLUMN response_headers, DROP COLUMN response_body`);
  }
}
