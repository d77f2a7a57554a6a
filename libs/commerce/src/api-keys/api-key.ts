import { ApiProperty } from '@nestjs/swagger';
import { type Permission, PERMISSIONS, isoTimestamp } from '@app/core';

export interface ApiKeyRow {
  id: string;
  store_id: string;
  name: string;
  prefix: string;
  permissions: Permission[];
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

/** The columns a request may read (never `secret_hash`: requests have no right on it). */
export const API_KEY_COLUMNS = `id, store_id, name, prefix, permissions, created_at, expires_at, last_used_at,
  revoked_at`;

const ISO_EXAMPLE = '2026-11-22T10:00:00.000Z';

/** A store key as the API returns it; never its secret or hash. The class documents it (`ApiKeyView`). */
export class ApiKeyView {
  @ApiProperty({ format: 'uuid', example: '0d6f5a52-9c1e-4b8a-a3f7-5e2d1c0b9a88' })
  id!: string;
  @ApiProperty({ format: 'uuid', example: '6f1c0b1e-2d4a-4c1b-9f57-1f0e8f6b8a11' })
  store_id!: string;
  @ApiProperty({ description: 'What the key is for, as its creator named it', example: 'Warehouse sync' })
  name!: string;
  @ApiProperty({
    description: 'The first characters of the secret (`sk_` and 8 more): not secret, to tell keys apart',
    example: 'sk_Q3vX9kz0',
  })
  prefix!: string;
  @ApiProperty({
    enum: PERMISSIONS,
    isArray: true,
    description: 'What the key may do in its store',
    example: ['catalog'],
  })
  permissions!: Permission[];
  @ApiProperty({ format: 'date-time', example: ISO_EXAMPLE })
  created_at!: string;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: '`null`: the key does not expire',
    example: null,
  })
  expires_at!: string | null;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'When the key was last used, to the minute; `null` before its first use',
    example: null,
  })
  last_used_at!: string | null;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: '`null` while the key works',
    example: null,
  })
  revoked_at!: string | null;
}

export function toApiKeyView(row: ApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    store_id: row.store_id,
    name: row.name,
    prefix: row.prefix,
    permissions: row.permissions,
    created_at: isoTimestamp(row.created_at),
    expires_at: row.expires_at ? isoTimestamp(row.expires_at) : null,
    last_used_at: row.last_used_at ? isoTimestamp(row.last_used_at) : null,
    revoked_at: row.revoked_at ? isoTimestamp(row.revoked_at) : null,
  };
}
