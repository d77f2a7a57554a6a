import { Controller, Get } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import {
  ApiError,
  ApiFunctionRoute,
  CurrentUser,
  decodeCursor,
  queryRows,
  TenantDb,
  toPage,
  type UserPrincipal,
  isoTimestamp,
  Query,
} from '@app/core';
import { DevMailboxMessage, DevMailboxQuery } from './dev-mailbox.dto.js';
import { ApiListDevMailbox } from './dev-mailbox.openapi.js';

interface MailboxRow {
  id: string;
  mail_id: string;
  template: string;
  recipient: string;
  sender: string;
  subject: string;
  text_body: string;
  html_body: string;
  created_at: Date;
}

/** The development mailbox: where e-mails go when SMTP_URL is unset, for the admin to read. */
@ApiTags('mail')
@ApiFunctionRoute()
@Controller('functions/v1/dev-mailbox')
export class DevMailboxController {
  constructor(private readonly db: TenantDb) {}

  @Get()
  @ApiListDevMailbox()
  async list(@CurrentUser() user: UserPrincipal, @Query() params: DevMailboxQuery) {
    // The database's policy lets only the admin read the mailbox; this answers everyone else plainly.
    if (user.role !== 'admin') throw ApiError.forbidden('Only the admin may read the development mailbox');
    const after = decodeCursor(params.cursor);
    const rows = await queryRows<MailboxRow>(
      this.db.tx,
      `SELECT * FROM dev_mailbox
        WHERE ($1::text IS NULL OR lower(recipient) = lower($1))
          AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::uuid))
        ORDER BY created_at DESC, id DESC LIMIT $4`,
      [params.to ?? null, after?.createdAt ?? null, after?.id ?? null, params.limit + 1],
    );
    return {
      success: true,
      ...toPage(rows, params.limit, (row): DevMailboxMessage => ({
        id: row.id,
        mail_id: row.mail_id,
        template: row.template,
        to: row.recipient,
        from: row.sender,
        subject: row.subject,
        text: row.text_body,
        html: row.html_body,
        created_at: isoTimestamp(row.created_at),
      })),
    };
  }
}
