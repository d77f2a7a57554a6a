import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsIn,
  IsISO8601,
  IsNotEmpty,
  IsOptional,
  IsString,
  MaxLength,
} from 'class-validator';
import { type Permission, PERMISSIONS } from '@app/core';

export class CreateApiKeyDto {
  @ApiProperty({
    description: 'What the key is for (1–100 characters), to tell keys apart',
    example: 'Warehouse sync',
    maxLength: 100,
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  name: string;

  @ApiProperty({
    description: `What the key may do in the store, as a team member: at least one of ${PERMISSIONS.join(', ')}`,
    enum: PERMISSIONS,
    isArray: true,
    example: ['catalog'],
  })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayUnique()
  @IsIn(PERMISSIONS, { each: true, message: `each permission must be one of ${PERMISSIONS.join(', ')}` })
  permissions: Permission[];

  @ApiPropertyOptional({
    type: 'string',
    format: 'date-time',
    description: 'When the key stops working (in the future); left out, it works until revoked',
    example: '2027-11-22T10:00:00.000Z',
  })
  @IsOptional()
  @IsISO8601({ strict: true })
  expires_at?: string;
}
