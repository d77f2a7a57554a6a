import { ApiProperty } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';
import { PageQueryDto } from '@app/core';
import { WEBHOOK_EXAMPLE } from '../webhooks/webhook.js';

export class ListNotificationsParams extends PageQueryDto {
  @ApiProperty({ description: 'The store whose notifications to list', format: 'uuid', example: WEBHOOK_EXAMPLE.store_id })
  @IsUUID()
  store_id: string;
}
