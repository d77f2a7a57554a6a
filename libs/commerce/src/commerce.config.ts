import { Type } from 'class-transformer';
import { IsInt, Min } from 'class-validator';
import { defineSettings, Setting, SettingsGroup } from '@app/core';

export class CommerceConfig extends SettingsGroup {
  @Setting('How long (hours) a team-member invitation can be accepted; 168 is 7 days.')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  INVITE_TTL_HOURS = 168;
}

export const commerceConfig = defineSettings('commerce', '@app/commerce', CommerceConfig, {
  description: 'Stores and their teams.',
});
