import { ApiProperty } from '@nestjs/swagger';
import { type Permission, PERMISSIONS, isoTimestamp } from '@app/core';

export interface MemberRow {
  id: string;
  store_id: string;
  email: string;
  user_id: string | null;
  permissions: Permission[];
  status: 'invited' | 'active';
  invite_expires_at: Date | null;
  accepted_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const ISO_EXAMPLE = '2026-11-22T10:00:00.000Z';

/** A team member or pending invitation as the API returns it; the class documents it (`MemberView`). */
export class MemberView {
  @ApiProperty({ format: 'uuid', example: '2a7d4e90-5b1c-4f3e-8d62-9e0a1b2c3d4e' })
  id!: string;
  @ApiProperty({ format: 'uuid', example: '6f1c0b1e-2d4a-4c1b-9f57-1f0e8f6b8a11' })
  store_id!: string;
  @ApiProperty({ format: 'email', description: 'The address the invitation went to', example: 'sam@example.com' })
  email!: string;
  @ApiProperty({
    type: 'string',
    format: 'uuid',
    nullable: true,
    description: "The member's account; `null` until the invitation is accepted",
    example: null,
  })
  user_id!: string | null;
  @ApiProperty({
    enum: PERMISSIONS,
    isArray: true,
    description: 'What the member may do in the store',
    example: ['catalog', 'orders'],
  })
  permissions!: Permission[];
  @ApiProperty({
    enum: ['invited', 'active'],
    description: '`invited` until the invitation is accepted',
    example: 'invited',
  })
  status!: 'invited' | 'active';
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'When the invitation stops working (INVITE_TTL_HOURS after it was sent); kept after it is accepted',
    example: '2026-11-29T10:00:00.000Z',
  })
  invite_expires_at!: string | null;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: '`null` while invited',
    example: null,
  })
  accepted_at!: string | null;
  @ApiProperty({ format: 'date-time', example: ISO_EXAMPLE })
  created_at!: string;
  @ApiProperty({ format: 'date-time', example: ISO_EXAMPLE })
  updated_at!: string;
}

export function toMemberView(row: MemberRow): MemberView {
  return {
    id: row.id,
    store_id: row.store_id,
    email: row.email,
    user_id: row.user_id,
    permissions: row.permissions,
    status: row.status,
    invite_expires_at: row.invite_expires_at ? isoTimestamp(row.invite_expires_at) : null,
    accepted_at: row.accepted_at ? isoTimestamp(row.accepted_at) : null,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}
