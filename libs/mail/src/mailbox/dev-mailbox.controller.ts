import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsEmail, IsOptional, MaxLength } from 'class-validator';
import {
  ApiError,
  ApiErrorResponse,
  ApiFunctionRoute,
  ApiPage,
  CurrentUser,
  decodeCursor,
  PageQueryDto,
  queryRows,
  TenantDb,
  toPage,
  type UserPrincipal,
} from '@app/core';

export class DevMailboxQuery extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Only the messages to this address', example: 'ada@example.com' })
  @IsOptional()
  @IsEmail()
  @MaxLength(254)
  to?: string;
}

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

/** One e-mail of the development mailbox (`DevMailboxMessage` in the OpenAPI document). */
export class DevMailboxMessage {
  @ApiProperty({ format: 'uuid', example: '5b1f0c8e-9a2d-4d7e-8f31-6c0e2b7a9d14' })
  id!: string;
  @ApiProperty({
    format: 'uuid',
    description: 'The e-mail in the outbox it was delivered from',
    example: '0e7c2d9a-1b3f-4a56-8c7d-9e0f1a2b3c4d',
  })
  mail_id!: string;
  @ApiProperty({ description: 'Which e-mail it is', example: 'reset_password' })
  template!: string;
  @ApiProperty({ description: 'The recipient', example: 'ada@example.com' })
  to!: string;
  @ApiProperty({ description: 'The sender, with its display name', example: 'Storefront Platform <no-reply@storefront.localhost>' })
  from!: string;
  @ApiProperty({ example: 'Reset your password' })
  subject!: string;
  @ApiProperty({
    description: 'The plain-text body',
    example: 'Reset your password\n\nSomeone asked to reset the password of the account ada@example.com.\n…',
  })
  text!: string;
  @ApiProperty({ description: 'The HTML body', example: '<!doctype html>…' })
  html!: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  created_at!: string;
}

/** The development mailbox: where e-mails go when SMTP_URL is unset, for the admin to read. */
@ApiTags('mail')
@ApiFunctionRoute()
@Controller('functions/v1/dev-mailbox')
export class DevMailboxController {
  constructor(private readonly db: TenantDb) {}

  @Get()
  @ApiOperation({
    summary: 'E-mails delivered to the development mailbox, newest first (admin only)',
    description:
      'Without `SMTP_URL` the worker delivers every e-mail here instead of an SMTP server: account confirmations, password ' +
      'resets, e-mail changes, team invitations and merchant notices, each with its subject, plain text and HTML. `to` ' +
      'filters by recipient. Empty while SMTP_URL is set (mail then leaves through SMTP).',
  })
  @ApiPage(DevMailboxMessage)
  @ApiErrorResponse(403, 'Not the admin', { code: 'FORBIDDEN', message: 'Only the admin may read the development mailbox' })
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
        created_at: row.created_at.toISOString(),
      })),
    };
  }
}
