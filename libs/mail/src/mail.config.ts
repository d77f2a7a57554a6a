import { Type } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { AsBoolean, AsNumberList, defineSettings, Setting, SettingsGroup } from '@app/core';

export class MailConfig extends SettingsGroup {
  @Setting(
    'Where e-mails go out: `smtp://user:password@host:587` (STARTTLS when offered) or `smtps://…:465`. ' +
      'Unset: into the development mailbox (docs/email.md), with a warning in production.',
  )
  @IsOptional()
  @Matches(/^smtps?:\/\/[^\s]+$/, { message: 'must be an smtp:// or smtps:// URL' })
  SMTP_URL?: string;

  @Setting('The sender of every e-mail, `address` or `Name <address>`; its domain ends the Message-IDs.')
  @IsString()
  @Matches(/^(?:[^<>\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/, {
    message: 'must be an address or "Name <address>"',
  })
  MAIL_FROM = 'Storefront Platform <no-reply@storefront.localhost>';

  @Setting('Whether this process sends the mail outbox (only `worker` and `all` processes do).')
  @AsBoolean()
  @IsBoolean()
  MAIL_RELAY = true;

  @Setting('How often the mail relay looks for e-mails that are due (50–60000 ms).')
  @Type(() => Number)
  @IsInt()
  @Min(50)
  @Max(60_000)
  MAIL_POLL_INTERVAL_MS = 1000;

  @Setting(
    'Waits before each further attempt of an e-mail the SMTP server did not take (unreachable, ' +
      'timeout, 4xx); their count is the number of retries. A 5xx is final. Then it is `failed`.',
  )
  @AsNumberList()
  @IsInt({ each: true, message: 'MAIL_RETRY_DELAYS_MS must be comma-separated whole milliseconds' })
  @Min(0, { each: true })
  @Max(86_400_000, { each: true })
  MAIL_RETRY_DELAYS_MS: number[] = [60_000, 300_000, 1_800_000, 3_600_000, 21_600_000];

  @Setting('Longest wait for the SMTP server: connecting, its greeting, each answer (100–300000 ms).')
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(300_000)
  MAIL_SMTP_TIMEOUT_MS = 30_000;

  @Setting(
    'Sent and failed e-mails and development-mailbox messages are deleted after this ' +
      'many days (workers, hourly); pending ones never. `0` keeps them; at most 3650.',
  )
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(3650)
  MAIL_RETENTION_DAYS = 30;
}

export const mailConfig = defineSettings('mail', '@app/mail', MailConfig, {
  description: 'Outgoing e-mail: the SMTP server, the sender, the relay of the mail outbox and how long mail is kept.',
});
