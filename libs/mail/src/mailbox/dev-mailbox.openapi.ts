import { applyDecorators } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { ApiErrorResponse, ApiPage } from '@app/core';
import { DevMailboxMessage } from './dev-mailbox.dto.js';

/** GET /functions/v1/dev-mailbox */
export const ApiListDevMailbox = () =>
  applyDecorators(
    ApiOperation({
      summary: 'E-mails delivered to the development mailbox, newest first (admin only)',
      description:
        'Without `SMTP_URL` the worker delivers every e-mail here instead of an SMTP server: account ' +
        'confirmations, password resets, e-mail changes, team invitations and merchant notices, each with its ' +
        'subject, plain text and HTML. `to` filters by recipient. Empty while SMTP_URL is set (mail then leaves ' +
        'through SMTP).',
    }),
    ApiPage(DevMailboxMessage),
    ApiErrorResponse(403, 'Not the admin', {
      code: 'FORBIDDEN',
      message: 'Only the admin may read the development mailbox',
    }),
  );
