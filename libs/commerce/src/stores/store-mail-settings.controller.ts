import { Body, Controller, Get, Param, Patch } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsBoolean, IsOptional } from 'class-validator';
import { ApiEnvelope, ApiFunctionRoute, StoreScoped } from '@app/core';
import { MailSettings, type StoreMailSettings } from '@app/mail';

/** Which of a store's notices are e-mailed, as the API returns them (`StoreMailSettingsView`). */
export class StoreMailSettingsView implements StoreMailSettings {
  @ApiProperty({ description: 'Mail invitees their invitation', example: true })
  team_invitation!: boolean;
  @ApiProperty({ description: 'Mail the owner when a webhook is disabled', example: true })
  webhook_disabled!: boolean;
  @ApiProperty({ description: 'Mail the owner when a scheduled post fails on a platform', example: false })
  social_post_failed!: boolean;
}

export class UpdateStoreMailSettingsDto implements Partial<StoreMailSettings> {
  @ApiPropertyOptional({ description: 'Mail invitees their invitation (off: the app sends its own, with invite_token)', example: true })
  @IsOptional()
  @IsBoolean()
  team_invitation?: boolean;

  @ApiPropertyOptional({ description: 'Mail the owner when a webhook is disabled', example: true })
  @IsOptional()
  @IsBoolean()
  webhook_disabled?: boolean;

  @ApiPropertyOptional({ description: 'Mail the owner when a scheduled post fails on a platform', example: false })
  @IsOptional()
  @IsBoolean()
  social_post_failed?: boolean;
}

/**
 * Which of a store's notices are e-mailed (all by default). Account e-mails (confirmations,
 * recovery) are not the store's to turn off. The merchant notifications themselves
 * (GET /functions/v1/notifications) are written either way.
 */
@ApiTags('stores')
@ApiFunctionRoute()
@ApiParam({ name: 'store_id', format: 'uuid' })
@Controller('functions/v1/stores/:store_id/mail-settings')
export class StoreMailSettingsController {
  constructor(private readonly settings: MailSettings) {}

  @Get()
  @StoreScoped({ from: 'param', need: 'manage' })
  @ApiOperation({
    summary: "Which of the store's notices are e-mailed (owner or admin)",
    description:
      'Every notice is e-mailed until the owner turns it off with PATCH. Account e-mails (confirmations, recovery) are not listed: they are always sent.',
  })
  @ApiEnvelope(200, { mail_settings: StoreMailSettingsView })
  async get(@Param('store_id') storeId: string) {
    return { success: true, mail_settings: await this.settings.of(storeId) };
  }

  @Patch()
  @StoreScoped({ from: 'param', need: 'manage' })
  @ApiOperation({
    summary: "Turn the store's e-mailed notices on or off (owner or admin)",
    description:
      '`team_invitation`: the invitation e-mail of POST …/members; `webhook_disabled` and `social_post_failed`: the e-mail to the owner ' +
      'beside the merchant notification. Fields left out keep their value.',
  })
  @ApiEnvelope(200, { mail_settings: StoreMailSettingsView })
  async update(@Param('store_id') storeId: string, @Body() body: UpdateStoreMailSettingsDto) {
    return { success: true, mail_settings: await this.settings.update(storeId, body) };
  }
}
