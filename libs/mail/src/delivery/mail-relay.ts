import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { PeriodicTask, queryRows, runtimeConfig, type RuntimeConfig, SecretBox, SystemDb } from '@app/core';
import { MailRenderer, type RenderedMail } from '../rendering/mail-renderer.js';
import type { MailTemplate } from '../templates.js';
import { MailSendError, MailTransport } from './mail-transport.js';
import { mailConfig, type MailConfig } from '../mail.config.js';

/** Messages claimed at a time. */
const BATCH = 20;
/** How long a claimed message is the claiming worker's: past it (the worker died mid-send) another sends it. */
export const MAIL_LEASE_MS = 10 * 60_000;

interface MailRow {
  id: string;
  template: MailTemplate;
  recipient: string;
  language: string;
  data: Record<string, unknown>;
  secret_sealed: string | null;
  attempts: number;
}

type Outcome = 'sent' | 'retried' | 'failed';

/**
 * Sends the mail outbox (worker and all-in-one processes, MAIL_RELAY). Every MAIL_POLL_INTERVAL_MS it
 * claims the messages that are due (`FOR UPDATE SKIP LOCKED`, so several workers never take the same
 * one; the claim counts the attempt and holds the message for MAIL_LEASE_MS), renders each from its
 * templates and hands it to the SMTP server, or, without SMTP_URL, to the development mailbox. A
 * message the server did not take is tried again after each of MAIL_RETRY_DELAYS_MS, then marked
 * `failed`; a 5xx refusal fails it at once. Only the claim's own attempt may mark it, so a worker
 * whose lease ran out cannot overwrite a later one's outcome.
 */
@Injectable()
export class MailRelay implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(MailRelay.name);
  private readonly task = new PeriodicTask('mail relay', () => this.deliverDue(), this.logger);
  private stopping = false;

  constructor(
    @Inject(mailConfig.KEY) private readonly config: MailConfig,
    @Inject(runtimeConfig.KEY) private readonly runtime: RuntimeConfig,
    private readonly system: SystemDb,
    private readonly transport: MailTransport,
    private readonly renderer: MailRenderer,
    private readonly box: SecretBox,
  ) {}

  get enabled(): boolean {
    return this.runtime.APP_ROLE !== 'api' && this.config.MAIL_RELAY;
  }

  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    if (this.transport.mode === 'mailbox') {
      const line =
        'SMTP_URL is unset: e-mails go to the development mailbox (GET /functions/v1/dev-mailbox, as the admin)';
      if (this.config.isProduction) this.logger.warn(line);
      else this.logger.log(line);
    }
    this.task.start(this.config.MAIL_POLL_INTERVAL_MS);
    void this.task.runOnce();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.task.stop();
  }

  /** Sends every message that is due, batch after batch, as the system; returns what became of them. */
  deliverDue(): Promise<Record<Outcome, number>> {
    return this.system.run(async () => {
      const counts: Record<Outcome, number> = { sent: 0, retried: 0, failed: 0 };
      while (!this.stopping) {
        const rows = await this.claim();
        for (const row of rows) counts[await this.deliver(row)] += 1;
        if (rows.length < BATCH) break;
      }
      return counts;
    });
  }

  private claim(): Promise<MailRow[]> {
    return queryRows<MailRow>(
      this.system.tx,
      `UPDATE mail_outbox m SET attempts = m.attempts + 1, next_attempt_at = now() +
        make_interval(secs => $2::double precision / 1000)
          WHERE m.id IN (SELECT id FROM mail_outbox WHERE status = 'pending' AND next_attempt_at <= now()
                          ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
          RETURNING m.id, m.template, m.recipient, m.language, m.data, m.secret_sealed, m.attempts`,
      [BATCH, MAIL_LEASE_MS],
    );
  }

  private async deliver(row: MailRow): Promise<Outcome> {
    let rendered: RenderedMail;
    try {
      const secret = row.secret_sealed ? (JSON.parse(this.box.open(row.secret_sealed)) as Record<string, unknown>) : {};
      rendered = this.renderer.render(row.template, row.language, { ...row.data, ...secret, recipient: row.recipient });
    } catch (error) {
      // A message that cannot be rendered (its secret no longer opens: ENCRYPTION_KEY changed) never will be.
      return this.failed(row, `not rendered: ${(error as Error).message}`, true);
    }
    const messageId = `<${row.id}@${this.transport.senderDomain}>`;
    if (this.transport.mode === 'mailbox') {
      await this.toMailbox(row, rendered);
      return 'sent';
    }
    try {
      const accepted = await this.transport.send({
        ...rendered,
        to: row.recipient,
        messageId,
        headers: { 'Auto-Submitted': 'auto-generated', 'X-Storefront-Template': row.template },
      });
      await this.mark(
        row,
        `status = 'sent', finished_at = now(), secret_sealed = NULL, last_error = NULL, message_id = $3`,
        accepted,
      );
      return 'sent';
    } catch (error) {
      const failure = error instanceof MailSendError ? error : new MailSendError((error as Error).message, false);
      return this.failed(row, failure.message, failure.permanent);
    }
  }

  /** Without SMTP: into the development mailbox, marked sent in the same transaction (exactly once). */
  private async toMailbox(row: MailRow, rendered: RenderedMail): Promise<void> {
    await this.system.transaction(async () => {
      const marked = await this.mark(
        row,
        `status = 'sent', finished_at = now(), secret_sealed = NULL, last_error = NULL`,
      );
      if (!marked) return;
      await queryRows(
        this.system.tx,
        `INSERT INTO dev_mailbox (mail_id, template, recipient, sender, subject, text_body, html_body)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (mail_id) DO NOTHING`,
        [row.id, row.template, row.recipient, this.config.MAIL_FROM, rendered.subject, rendered.text, rendered.html],
      );
    });
  }

  private async failed(row: MailRow, reason: string, permanent: boolean): Promise<Outcome> {
    const delays = this.config.MAIL_RETRY_DELAYS_MS;
    if (permanent || row.attempts > delays.length) {
      this.logger.warn(
        { mail_id: row.id, template: row.template, attempts: row.attempts, reason },
        'mail not delivered; given up',
      );
      await this.mark(row, `status = 'failed', finished_at = now(), secret_sealed = NULL, last_error = $3`, reason);
      return 'failed';
    }
    this.logger.warn(
      { mail_id: row.id, template: row.template, attempts: row.attempts, reason },
      'mail not delivered; will retry',
    );
    await this.mark(
      row,
      `last_error = $3, next_attempt_at = now() + make_interval(secs => $4::double precision / 1000)`,
      reason,
      delays[row.attempts - 1],
    );
    return 'retried';
  }

  /** Applies `changes` if the message is still the claim's (pending, at this attempt); returns whether it was. */
  private async mark(row: MailRow, changes: string, ...values: unknown[]): Promise<boolean> {
    const updated = await queryRows(
      this.system.tx,
      `UPDATE mail_outbox SET ${changes} WHERE id = $1 AND status = 'pending' AND attempts = $2 RETURNING 1`,
      [row.id, row.attempts, ...values],
    );
    return updated.length > 0;
  }
}
