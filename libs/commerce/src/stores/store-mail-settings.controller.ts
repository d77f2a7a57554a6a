import { Controller, Get, Param, Patch } from '@nestjs/common';
import { ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiFunctionRoute, StoreScoped, Body } from '@app/core';
import { MailSettings } from '@app/mail';
import { UpdateStoreMailSettingsDto } from './store-mail-settings.dto.js';
import { ApiGetStoreMailSettings, ApiUpdateStoreMailSettings } from './store-mail-settings.openapi.js';

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
  @ApiGetStoreMailSettings()
  async get(@Param('store_id') storeId: string) {
    return { success: true, mail_settings: await this.settings.of(storeId) };
  }

  @Patch()
  @StoreScoped({ from: 'param', need: 'manage' })
  @ApiUpdateStoreMailSettings()
  async update(@Param('store_id') storeId: string, @Body() body: UpdateStoreMailSettingsDto) {
    return { success: true, mail_settings: await this.settings.update(storeId, body) };
  }
}
