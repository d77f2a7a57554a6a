import { Injectable } from '@nestjs/common';
import { queryRows, RequestBinding, SecretBox, TenantDb } from '@app/core';
import type { MailTemplate } from '../templates.js';

export interface OutgoingMail {
  template: MailTemplate;
  to: string;
  /**
   * The store it is about: its language and name go into the message (a customer's store when only `userId` is given).
   */
  storeId?: string | null;
  userId?: string | null;
  /** What the template shows. */
  data?: Record<string, unknown>;
  /** What carries a credential (a link with a token, a code): sealed at rest with ENCRYPTION_KEY, dropped once sent. */
  secret?: Record<string, unknown>;
}

/**
 * Writes e-mails into the mail outbox in the caller's transaction (the change that causes them), for
 * the worker's mail relay to send after commit. Through `app_enqueue_mail` with a ticket only the API
 * makes: request transactions have no rights on the outbox itself.
 */
@Injectable()
export class MailOutbox {
  constructor(
    private readonly db: TenantDb,
    private readonly binding: RequestBinding,
    private readonly box: SecretBox,
  ) {}

  /** Returns the message's id, or null when its store turned this notice off. */
  async enqueue(mail: OutgoingMail): Promise<string | null> {
    const [row] = await queryRows<{ id: string | null }>(
      this.db.tx,
      'SELECT app_enqueue_mail($1, $2, $3, $4, $5, $6, $7) AS id',
      [
        mail.template,
        mail.to,
        mail.storeId ?? null,
        mail.userId ?? null,
        JSON.stringify(mail.data ?? {}),
        mail.secret ? this.box.seal(JSON.stringify(mail.secret)) : null,
        this.binding.ticket('mail', `${mail.template}:${mail.to.toLowerCase()}`),
      ],
    );
    return row.id;
  }
}
