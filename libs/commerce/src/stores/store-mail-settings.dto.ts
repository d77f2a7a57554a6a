import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional } from 'class-validator';
import type { StoreMailSettings } from '@app/mail';

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
  @ApiPropertyOptional({
    description: 'Mail invitees their invitation (off: the app sends its own, with invite_token)',
    example: true,
  })
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
