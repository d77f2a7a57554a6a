import { applyDecorators } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { ApiEnvelope } from '@app/core';
import { StoreMailSettingsView } from './store-mail-settings.dto.js';

/** GET /functions/v1/stores/{store_id}/mail-settings */
export const ApiGetStoreMailSettings = () =>
  applyDecorators(
    ApiOperation({
      summary: "Which of the store's notices are e-mailed (owner or admin)",
      description:
        'Every notice is e-mailed until the owner turns it off with PATCH. Account ' +
        'e-mails (confirmations, recovery) are not listed: they are always sent.',
    }),
    ApiEnvelope(200, { mail_settings: StoreMailSettingsView }),
  );

/** PATCH /functions/v1/stores/{store_id}/mail-settings */
export const ApiUpdateStoreMailSettings = () =>
  applyDecorators(
    ApiOperation({
      summary: "Turn the store's e-mailed notices on or off (owner or admin)",
      description:
        '`team_invitation`: the invitation e-mail of POST …/members; `webhook_disabled` and `social_post_failed`: ' +
        'the e-mail to the owner beside the merchant notification. Fields left out keep their value.',
    }),
    ApiEnvelope(200, { mail_settings: StoreMailSettingsView }),
  );
