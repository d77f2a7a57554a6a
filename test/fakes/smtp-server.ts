import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { until } from '../support/wait.js';

export interface ReceivedMail {
  /** The envelope's recipients (RCPT TO). */
  to: string[];
  subject: string;
  text: string;
  html: string;
  from: string;
  messageId: string;
  /** The message's template, from its X-Storefront-Template header. */
  template: string;
  parsed: ParsedMail;
}

/**
 * An SMTP server on 127.0.0.1 (smtp-server), each message parsed with mailparser. `tempfail` answers
 * every recipient 451 (try again later); `stop()` closes the port (connections refused) and
 * `start()` opens the same one again, so the app's retries can be watched.
 */
export class FakeSmtpServer {
  readonly received: ReceivedMail[] = [];
  /**
   * Recipients refused with 451 while `tempfail`, and connections turned away while stopped do not reach here at all.
   */
  refusals = 0;
  tempfail = false;
  port = 0;
  private server?: SMTPServer;

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      logger: false,
      onRcptTo: (_address, _session, callback) => {
        if (!this.tempfail) return callback();
        this.refusals += 1;
        callback(Object.assign(new Error('Mailbox busy, try again later'), { responseCode: 451 }));
      },
      onData: (stream, session, callback) => {
        simpleParser(stream)
          .then((parsed) => {
            this.received.push({
              to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              html: typeof parsed.html === 'string' ? parsed.html : '',
              from: parsed.from?.text ?? '',
              messageId: parsed.messageId ?? '',
              template: String(parsed.headers.get('x-storefront-template') ?? ''),
              parsed,
            });
            callback();
          })
          .catch(callback);
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.server.address() as { port: number }).port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Messages to `address`, in arrival order. */
  to(address: string): ReceivedMail[] {
    return this.received.filter((mail) => mail.to.includes(address.toLowerCase()));
  }

  /** Waits for the `count`th message to `address` (and answers the messages so far). */
  async waitFor(address: string, count = 1, timeoutMs = 20_000): Promise<ReceivedMail[]> {
    return until(
      () => this.to(address).length >= count && this.to(address),
      `${count} e-mail(s) to ${address}`,
      timeoutMs,
    );
  }
}

/** The link of an account or invitation e-mail (GET /auth/v1/verify), from its text body. */
export function verifyLinkIn(mail: ReceivedMail): string {
  const link = /(https?:\/\/\S+\/auth\/v1\/verify\?\S+)/.exec(mail.text)?.[1];
  if (!link) throw new Error(`no verify link in: ${mail.text}`);
  return link;
}

/** The 6-digit code of an account e-mail. */
export function codeIn(mail: ReceivedMail): string {
  const line = mail.text.split('\n').find((text) => !text.includes('://') && /\b\d{6}\s*$/.test(text));
  const code = line ? /(\d{6})\s*$/.exec(line)?.[1] : undefined;
  if (!code) throw new Error(`no code in: ${mail.text}`);
  return code;
}
