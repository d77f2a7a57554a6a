import { Injectable } from '@nestjs/common';
import { AppConfig, SystemDb, RetentionSweep } from '@app/core';

/**
 * Deletes mail sent or given up more than MAIL_RETENTION_DAYS ago, and development-mailbox messages
 * as old (indexes mail_outbox_finished_idx, dev_mailbox_page_idx). Pending mail is never deleted.
 */
@Injectable()
export class MailRetention extends RetentionSweep {
  constructor(system: SystemDb, config: AppConfig) {
    const deleteBatch = `
      WITH outbox AS (
        DELETE FROM mail_outbox WHERE id IN (
          SELECT id FROM mail_outbox WHERE status <> 'pending' AND finished_at < now() - make_interval(days => $1)
           LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING 1),
      mailbox AS (
        DELETE FROM dev_mailbox WHERE id IN (
          SELECT id FROM dev_mailbox WHERE created_at < now() - make_interval(days => $1) LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING 1)
      SELECT 1 FROM outbox UNION ALL SELECT 1 FROM mailbox`;
    super({ name: 'mail retention', days: 'MAIL_RETENTION_DAYS', deleteBatch }, system, config);
  }
}
