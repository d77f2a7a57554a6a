import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsIn, IsObject, IsOptional, IsString, MaxLength, ValidateBy } from 'class-validator';
import { GoTrueError } from '@app/core';
import { PkceFields } from '../pkce/pkce.dto.js';
import { parseGoTrueBody } from './auth.dto.js';

const INVALID_EMAIL = { message: 'Unable to validate email address: invalid format' };
/** The most `data` (user metadata) one account keeps, as JSON. */
export const MAX_USER_METADATA_BYTES = 8192;

export class UpdateUserBody extends PkceFields {
  @ApiPropertyOptional({
    description:
      'A new address: with AUTH_CONFIRM_EMAIL it stays pending (`new_email`) until the link or ' +
      'code mailed to it is used; without, it applies at once. Either way the old address is told.',
    example: 'ada.new@example.com',
  })
  @IsOptional()
  @IsEmail({}, INVALID_EMAIL)
  @MaxLength(254)
  email?: string;

  @ApiPropertyOptional({
    description:
      `A new password, at least 8 characters. Needs current_password, or a session signed in within ` +
      `AUTH_RECENT_SIGN_IN (24 h; e.g. from a recovery link). Ends the user's other sessions.`,
    example: 'a new correct horse',
  })
  @IsOptional()
  @IsString({ message: 'password must be a string' })
  @MaxLength(512)
  password?: string;

  @ApiPropertyOptional({
    description: 'The current password, when the session did not sign in recently',
    example: 'correct horse battery',
  })
  @IsOptional()
  @IsString({ message: 'current_password must be a string' })
  @MaxLength(512)
  current_password?: string;

  @ApiPropertyOptional({
    description:
      `User metadata merged into \`user_metadata\` (a key set to null is removed; at ` +
      `most ${MAX_USER_METADATA_BYTES} bytes in all). \`full_name\` is the display name.`,
    example: { full_name: 'Ada Lovelace', newsletter: true },
  })
  @IsOptional()
  @IsObject({ message: 'data must be an object' })
  @ValidateBy({
    name: 'userMetadata',
    validator: {
      validate: (value: unknown) => {
        const name = (value as Record<string, unknown>)?.full_name;
        return name === undefined || name === null || (typeof name === 'string' && name.length <= 200);
      },
      defaultMessage: () => 'data.full_name must be a string of at most 200 characters, or null',
    },
  })
  @ValidateBy({
    name: 'userMetadataSize',
    validator: {
      validate: (value: unknown) => Buffer.byteLength(JSON.stringify(value ?? {})) <= MAX_USER_METADATA_BYTES,
      defaultMessage: () => `data must be at most ${MAX_USER_METADATA_BYTES} bytes as JSON`,
    },
  })
  data?: Record<string, unknown>;
}

export class RecoverBody extends PkceFields {
  @ApiProperty({ example: 'ada@example.com' })
  @IsEmail({}, INVALID_EMAIL)
  @MaxLength(254)
  email: string;
}

export class ResendBody extends PkceFields {
  @ApiProperty({ enum: ['signup', 'email_change'], description: 'Which confirmation to send again', example: 'signup' })
  @IsIn(['signup', 'email_change'], { message: 'type must be signup or email_change' })
  type: 'signup' | 'email_change';

  @ApiProperty({ description: "The account's address (for email_change, its current one)", example: 'ada@example.com' })
  @IsEmail({}, INVALID_EMAIL)
  @MaxLength(254)
  email: string;
}

export const VERIFY_TYPES = ['signup', 'recovery', 'email_change', 'invite', 'magiclink', 'email'] as const;

export class VerifyBody {
  @ApiProperty({ enum: VERIFY_TYPES, example: 'recovery' })
  @IsIn(VERIFY_TYPES, { message: 'type must be signup, recovery, email_change, invite, magiclink or email' })
  type: (typeof VERIFY_TYPES)[number];

  @ApiPropertyOptional({
    description: "The token of an e-mail's link (its `token` query parameter)",
    example: 'Jb3y7Qx0...',
  })
  @IsOptional()
  @IsString({ message: 'token_hash must be a string' })
  @MaxLength(200)
  token_hash?: string;

  @ApiPropertyOptional({
    description: 'With `token`: the address the code was sent to (for email_change, the new one)',
    example: 'ada@example.com',
  })
  @IsOptional()
  @IsEmail({}, INVALID_EMAIL)
  @MaxLength(254)
  email?: string;

  @ApiPropertyOptional({ description: 'The 6-digit code of the e-mail (with `email`)', example: '123456' })
  @IsOptional()
  @IsString({ message: 'token must be a string' })
  @MaxLength(200)
  token?: string;
}

export function parseVerifyBody(body: unknown): VerifyBody {
  const parsed = parseGoTrueBody(VerifyBody, body);
  if (parsed.token_hash === undefined && parsed.token === undefined) {
    throw new GoTrueError(400, 'validation_failed', 'Verify requires either a token_hash, or an email and its token');
  }
  return parsed;
}
