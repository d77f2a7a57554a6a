import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsISO4217CurrencyCode, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsLanguageTag, IsTimeZone } from '@app/core';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

export class CreateStoreDto {
  @ApiProperty({ description: 'Store name, 1 to 200 characters', example: 'Blue Fern Goods' })
  @Transform(trim)
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name: string;

  @ApiPropertyOptional({ description: 'ISO 4217 currency of prices and totals', example: 'USD', default: 'USD' })
  @IsOptional()
  @Transform(({ value }) => (typeof value === 'string' ? value.toUpperCase() : value))
  @IsISO4217CurrencyCode()
  currency?: string;

  @ApiPropertyOptional({ description: 'BCP 47 language tag of generated content', example: 'en', default: 'en' })
  @IsOptional()
  @IsLanguageTag()
  default_language?: string;

  @ApiPropertyOptional({
    description: 'IANA time zone, used for suggested posting times',
    example: 'America/New_York',
    default: 'UTC',
  })
  @IsOptional()
  @IsTimeZone()
  timezone?: string;
}

export class UpdateStoreDto extends PartialType(CreateStoreDto) {}
