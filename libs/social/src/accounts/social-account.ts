import { ApiProperty } from '@nestjs/swagger';
import { SOCIAL_PLATFORMS, type SocialPlatformId } from '../platforms/registry.js';
import type { SocialAccountRow } from './social-account.repository.js';
import { isoTimestamp } from '@app/core';

/** A connected account as the API shows it: never its tokens (`SocialAccountView` in the OpenAPI document). */
export class SocialAccountView {
  @ApiProperty({ format: 'uuid', example: '6f1c2d9e-3b7a-4c8e-9f10-2a3b4c5d6e7f' })
  id!: string;
  @ApiProperty({ format: 'uuid', example: '0f8fad5b-d9cb-469f-a165-70867728950e' })
  store_id!: string;
  @ApiProperty({ enum: SOCIAL_PLATFORMS, description: 'At most one account per platform and store', example: 'x' })
  platform!: SocialPlatformId;
  @ApiProperty({ description: "The account's id on the platform", example: '1790123456789012345' })
  platform_account_id!: string;
  @ApiProperty({ example: 'bluefern' })
  username!: string;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Null when the platform gives none',
    example: 'Blue Fern Goods',
  })
  display_name!: string | null;
  @ApiProperty({
    enum: ['active', 'reauthorize'],
    description: '`reauthorize`: the platform refused to renew access; connect the account again',
    example: 'active',
  })
  status!: 'active' | 'reauthorize';
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'When the access token expires (it is renewed before); null when it does not',
    example: '2026-11-22T12:00:00.000Z',
  })
  token_expires_at!: string | null;
  @ApiProperty({
    type: [String],
    description: 'The permissions granted',
    example: ['tweet.read', 'tweet.write', 'users.read', 'offline.access'],
  })
  scopes!: string[];
  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  connected_at!: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  updated_at!: string;
}

export function toAccountView(row: SocialAccountRow): SocialAccountView {
  return {
    id: row.id,
    store_id: row.store_id,
    platform: row.platform,
    platform_account_id: row.platform_account_id,
    username: row.username,
    display_name: row.display_name,
    status: row.status,
    token_expires_at: row.token_expires_at ? isoTimestamp(new Date(row.token_expires_at)) : null,
    scopes: row.scopes,
    connected_at: isoTimestamp(new Date(row.created_at)),
    updated_at: isoTimestamp(new Date(row.updated_at)),
  };
}
