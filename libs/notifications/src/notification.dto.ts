import { ApiProperty } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';
import { PageQueryDto } from '@app/core';

export class ListNotificationsParams extends PageQueryDto {
  @ApiProperty({
    description: 'The store whose notifications to list',
    format: 'uuid',
    example: '6f1c0b1e-2d4a-4c1b-9f57-1f0e8f6b8a11',
  })
  @IsUUID()
  store_id: string;
}
