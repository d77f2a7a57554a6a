import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsOptional, MaxLength } from 'class-validator';
import { PageQueryDto } from '@app/core';

export class DevMailboxQuery extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Only the messages to this address', example: 'ada@example.com' })
  @IsOptional()
  @IsEmail()
  @MaxLength(254)
  to?: string;
}

/** One e-mail of the development mailbox (`DevMailboxMessage` in the OpenAPI document). */
export class DevMailboxMessage {
  @ApiProperty({ format: 'uuid', example: '5b1f0c8e-9a2d-4d7e-8f31-6c0e2b7a9d14' })
  id!: string;
  @ApiProperty({
    format: 'uuid',
    description: 'The e-mail in the outbox it was delivered from',
    example: '0e7c2d9a-1b3f-4a56-8c7d-9e0f1a2b3c4d',
  })
  mail_id!: string;
  @ApiProperty({ description: 'Which e-mail it is', example: 'reset_password' })
  template!: string;
  @ApiProperty({ description: 'The recipient', example: 'ada@example.com' })
  to!: string;
  @ApiProperty({
    description: 'The sender, with its display name',
    example: 'Storefront Platform <no-reply@storefront.localhost>',
  })
  from!: string;
  @ApiProperty({ example: 'Reset your password' })
  subject!: string;
  @ApiProperty({
    description: 'The plain-text body',
    example: 'Reset your password\n\nSomeone asked to reset the password of the account ada@example.com.\n…',
  })
  text!: string;
  @ApiProperty({ description: 'The HTML body', example: '<!doctype html>…' })
  html!: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  created_at!: string;
}
