import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ROLES, type Role, isoTimestamp } from '@app/core';

export interface UserRow {
  id: string;
  email: string;
  password_hash: string | null;
  role: Role;
  full_name: string | null;
  provider: string;
  store_id: string | null;
  created_at: Date;
  updated_at: Date;
  last_sign_in_at: Date | null;
  email_confirmed_at: Date | null;
  confirmation_sent_at: Date | null;
  recovery_sent_at: Date | null;
  new_email: string | null;
  email_change_sent_at: Date | null;
  user_metadata: Record<string, unknown>;
}

const ISO_EXAMPLE = '2026-11-22T10:00:00.000Z';

/** `app_metadata` of a user: set by the server, not by the user. */
export class UserAppMetadata {
  @ApiProperty({ enum: ROLES, description: "The account's role", example: 'merchant' })
  role!: Role;
  @ApiProperty({ description: 'How the account signs in: `email` (password) or `google`', example: 'email' })
  provider!: string;
  @ApiProperty({ type: [String], description: 'The sign-in providers of the account (one)', example: ['email'] })
  providers!: string[];
  @ApiPropertyOptional({
    format: 'uuid',
    description: 'For a customer: the store it belongs to',
    example: '6f1c0b1e-2d4a-4c1b-9f57-1f0e8f6b8a11',
  })
  store_id?: string;
}

/**
 * The user as `/auth/v1` answers it, in GoTrue's shape; the class documents it in the OpenAPI document (`UserView`).
 */
export class UserView {
  @ApiProperty({ format: 'uuid', example: '0b6f3c1e-8d2a-4e57-9a36-2c1f0e7d9b44' })
  id!: string;
  @ApiProperty({ description: 'The audience of its access tokens (JWT_AUDIENCE)', example: 'authenticated' })
  aud!: string;
  @ApiProperty({ format: 'email', example: 'ada@example.com' })
  email!: string;
  @ApiProperty({ enum: ROLES, example: 'merchant' })
  role!: Role;
  @ApiProperty({ type: () => UserAppMetadata })
  app_metadata!: UserAppMetadata;
  @ApiProperty({
    type: 'object',
    properties: { full_name: { type: 'string', description: 'The display name' } },
    additionalProperties: true,
    description: 'What the user set with `data` at sign-up or PUT /auth/v1/user; `full_name` is the display name',
    example: { full_name: 'Ada Merchant' },
  })
  user_metadata!: Record<string, unknown> & { full_name?: string };
  @ApiProperty({ format: 'date-time', example: ISO_EXAMPLE })
  created_at!: string;
  @ApiProperty({ format: 'date-time', example: ISO_EXAMPLE })
  updated_at!: string;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: '`null` before the first sign-in',
    example: ISO_EXAMPLE,
  })
  last_sign_in_at!: string | null;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: '`null` while the address is not confirmed',
    example: ISO_EXAMPLE,
  })
  email_confirmed_at!: string | null;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'The same as `email_confirmed_at`',
    example: ISO_EXAMPLE,
  })
  confirmed_at!: string | null;
  @ApiPropertyOptional({
    format: 'date-time',
    description: 'When the last sign-up confirmation was mailed',
    example: ISO_EXAMPLE,
  })
  confirmation_sent_at?: string;
  @ApiPropertyOptional({
    format: 'date-time',
    description: 'When the last recovery e-mail was mailed',
    example: ISO_EXAMPLE,
  })
  recovery_sent_at?: string;
  @ApiPropertyOptional({
    format: 'email',
    description: 'A new address waiting for its confirmation (PUT /auth/v1/user)',
    example: 'ada.new@example.com',
  })
  new_email?: string;
  @ApiPropertyOptional({
    format: 'date-time',
    description: 'When the confirmation of `new_email` was mailed',
    example: ISO_EXAMPLE,
  })
  email_change_sent_at?: string;
}

const iso = (date: Date | null) => (date ? isoTimestamp(date) : null);

export function toUserView(user: UserRow, audience: string): UserView {
  return {
    id: user.id,
    aud: audience,
    email: user.email,
    role: user.role,
    app_metadata: {
      role: user.role,
      provider: user.provider,
      providers: [user.provider],
      ...(user.store_id ? { store_id: user.store_id } : {}),
    },
    user_metadata: { ...user.user_metadata, ...(user.full_name ? { full_name: user.full_name } : {}) },
    created_at: isoTimestamp(user.created_at),
    updated_at: isoTimestamp(user.updated_at),
    last_sign_in_at: iso(user.last_sign_in_at),
    email_confirmed_at: iso(user.email_confirmed_at),
    confirmed_at: iso(user.email_confirmed_at),
    ...(user.confirmation_sent_at ? { confirmation_sent_at: isoTimestamp(user.confirmation_sent_at) } : {}),
    ...(user.recovery_sent_at ? { recovery_sent_at: isoTimestamp(user.recovery_sent_at) } : {}),
    ...(user.new_email ? { new_email: user.new_email } : {}),
    ...(user.email_change_sent_at ? { email_change_sent_at: isoTimestamp(user.email_change_sent_at) } : {}),
  };
}
