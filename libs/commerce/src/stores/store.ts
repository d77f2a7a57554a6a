import { ApiProperty } from '@nestjs/swagger';
import { isoTimestamp } from '@app/core';

export interface StoreRow {
  id: string;
  owner_id: string;
  name: string;
  currency: string;
  default_language: string;
  timezone: string;
  created_at: Date;
  updated_at: Date;
}

/** A store as the API returns it; the class documents it in the OpenAPI document (`StoreView`). */
export class StoreView {
  @ApiProperty({ format: 'uuid', example: '6f1c0b1e-2d4a-4c1b-9f57-1f0e8f6b8a11' })
  id!: string;
  @ApiProperty({
    format: 'uuid',
    description: 'The merchant who owns the store',
    example: '0b6f3c1e-8d2a-4e57-9a36-2c1f0e7d9b44',
  })
  owner_id!: string;
  @ApiProperty({ example: 'Blue Fern Goods' })
  name!: string;
  @ApiProperty({ description: 'ISO 4217 code', example: 'USD' })
  currency!: string;
  @ApiProperty({ description: 'Language of generated content unless a request names one', example: 'en' })
  default_language!: string;
  @ApiProperty({ description: 'IANA time zone', example: 'America/New_York' })
  timezone!: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  created_at!: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  updated_at!: string;
}

export function toStoreView(row: StoreRow): StoreView {
  return {
    id: row.id,
    owner_id: row.owner_id,
    name: row.name,
    currency: row.currency,
    default_language: row.default_language,
    timezone: row.timezone,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}
