import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import nodemailer, { type Transporter } from 'nodemailer';
import type { RenderedMail } from '../rendering/mail-renderer.js';
import { mailConfig, type MailConfig } from '../mail.config.js';

export interface Envelope extends RenderedMail {
  to: string;
  /**
   * Stable per outbox row, so a receiver can tell a message sent twice (a crash after the server took it) from two
   * messages.
   */
  messageId: string;
  headers?: Record<string, string>;
}

/** Why an SMTP attempt failed, and whether trying again may help. */
export class MailSendError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

/**
 * Hands messages to the SMTP server of SMTP_URL (nodemailer). A 5xx answer is permanent (the server
 * refuses this message or recipient); a 4xx, a refused or cut connection and a timeout are not.
 */
@Injectable()
export class MailTransport implements OnApplicationShutdown {
  private readonly logger = new Logger(MailTransport.name);
  private transporter?: Transporter;

  constructor(@Inject(mailConfig.KEY) private readonly config: MailConfig) {}

  /** `smtp` with SMTP_URL, else `mailbox`: the development mailbox (a table the admin reads). */
  get mode(): 'smtp' | 'mailbox' {
    return this.config.SMTP_URL ? 'smtp' : 'mailbox';
  }

  /** The host of MAIL_FROM's address, for Message-IDs. */
  get senderDomain(): string {
    return /@([^\s>]+)>?\s*$/.exec(this.config.MAIL_FROM)?.[1] ?? 'localhost';
  }

  async send(envelope: Envelope): Promise<string> {
    try {
      const info = await this.smtp().sendMail({
        from: this.config.MAIL_FROM,
        to: envelope.to,
        subject: envelope.subject,
        text: envelope.text,
        html: envelope.html,
        messageId: envelope.messageId,
        headers: envelope.headers,
      });
      return info.messageId ?? envelope.messageId;
    } catch (error) {
      const failure = error as Error & { responseCode?: number; code?: string };
      const permanent =
        typeof failure.responseCode === 'number' && failure.responseCode >= 500 && failure.responseCode < 600;
      throw new MailSendError(`${failure.code ?? 'SMTP'}: ${failure.message}`.slice(0, 500), permanent);
    }
  }

  onApplicationShutdown(): void {
    this.transporter?.close();
  }

  private smtp(): Transporter {
    if (!this.transporter) {
      const timeout = this.config.MAIL_SMTP_TIMEOUT_MS;
      // One connection per message: nothing to keep alive between the relay's rare batches, and
      // nothing to repair after the server went away.
      this.transporter = nodemailer.createTransport({
        url: this.config.SMTP_URL,
        connectionTimeout: timeout,
        greetingTimeout: timeout,
        socketTimeout: timeout,
      } as Parameters<typeof nodemailer.createTransport>[0]);
      this.logger.log(`Mail goes out through ${new URL(this.config.SMTP_URL!).host}`);
    }
    return this.transporter;
  }
}
