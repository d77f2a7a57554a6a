import { ApiProperty } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';
import { PageQueryDto } from '@app/core';
import { NOTIFICATION_EXAMPLE } from '../webhooks/webhook-api.constants.js';

export class ListNotificationsParams extends PageQueryDto {
  @ApiProperty({ description: 'The store whose notifications to list', format: 'uuid', example: NOTIFICATION_EXAMPLE.store_id })
  @IsUUID()
  store_id: string;
}
