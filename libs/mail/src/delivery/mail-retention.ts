import { Inject, Injectable } from '@nestjs/common';
import { RetentionSweep, type RuntimeConfig, runtimeConfig, SystemDb } from '@app/core';
import { mailConfig, type MailConfig } from '../mail.config.js';

/**
 * Deletes mail sent or given up more than MAIL_RETENTION_DAYS ago, and development-mailbox messages
 * as old (indexes mail_outbox_finished_idx, dev_mailbox_page_idx). Pending mail is never deleted.
 */
@Injectable()
export class MailRetention extends RetentionSweep {
  constructor(
    system: SystemDb,
    @Inject(runtimeConfig.KEY) runtime: RuntimeConfig,
    @Inject(mailConfig.KEY) mail: MailConfig,
  ) {
    const deleteBatch = `
      WITH outbox AS (
        DELETE FROM mail_outbox WHERE id IN (
          SELECT id FROM mail_outbox WHERE status <> 'pending' AND finished_at < now() - make_interval(days => $1)
           LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING 1),
      mailbox AS (
        DELETE FROM dev_mailbox WHERE id IN (
          SELECT id FROM dev_mailbox WHERE created_at < now() - make_interval(days => $1) LIMIT $2
            FOR UPDATE SKIP LOCKED)
        RETURNING 1)
      SELECT 1 FROM outbox UNION ALL SELECT 1 FROM mailbox`;
    super({ name: 'mail retention', days: () => mail.MAIL_RETENTION_DAYS, deleteBatch }, system, runtime);
  }
}
