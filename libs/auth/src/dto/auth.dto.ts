import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { plainToInstance, Type } from 'class-transformer';
import {
  Equals,
  IsEmail,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
  ValidateNested,
  validateSync,
} from 'class-validator';
import { GoTrueError } from '@app/core';
import { PkceFields } from '../pkce/pkce.dto.js';

export const MIN_PASSWORD_LENGTH = 8;

export class SignUpData {
  @ApiPropertyOptional({ description: "The user's display name", example: 'Ada Merchant' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  full_name?: string;

  @ApiPropertyOptional({
    description: 'Only "customer" may be asked for; plain sign-up makes a merchant',
    example: 'customer',
    enum: ['customer'],
  })
  @IsOptional()
  @Equals('customer', { message: 'data.role may only be "customer"' })
  role?: 'customer';

  @ApiPropertyOptional({
    description: 'With role "customer": the store the customer belongs to',
    example: '6f1c0b1e-2d4a-4c1b-9f57-1f0e8f6b8a11',
  })
  @IsOptional()
  @IsUUID('all', { message: 'data.store_id must be a UUID' })
  store_id?: string;

  @ApiPropertyOptional({
    description: 'An invitation token from POST /functions/v1/stores/{store_id}/members: makes a team member',
    example: 'qE3k...',
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  invite_token?: string;
}

export class SignUpBody extends PkceFields {
  @ApiProperty({ example: 'ada@example.com' })
  @IsEmail({}, { message: 'Unable to validate email address: invalid format' })
  @MaxLength(254)
  email: string;

  @ApiProperty({ description: `At least ${MIN_PASSWORD_LENGTH} characters`, example: 'correct horse battery' })
  @IsString({ message: 'password must be a string' })
  @MaxLength(512)
  password: string;

  @ApiPropertyOptional({ type: SignUpData })
  @IsOptional()
  @IsObject({ message: 'data must be an object' })
  @ValidateNested()
  @Type(() => SignUpData)
  data?: SignUpData;
}

export class PasswordGrantBody {
  @ApiProperty({ example: 'ada@example.com' })
  @IsString({ message: 'email must be a string' })
  @MaxLength(254)
  email: string;

  @ApiProperty({ example: 'correct horse battery' })
  @IsString({ message: 'password must be a string' })
  @MaxLength(512)
  password: string;
}

export class RefreshGrantBody {
  @ApiProperty({ description: 'The refresh token of the current session (single use)', example: 'n3Vq2...' })
  @IsString({ message: 'refresh_token must be a string' })
  @MaxLength(200)
  refresh_token: string;
}

export class TokenQuery {
  @ApiProperty({ enum: ['password', 'refresh_token'] })
  @IsIn(['password', 'refresh_token'], { message: 'grant_type must be password or refresh_token' })
  grant_type: 'password' | 'refresh_token';
}

/**
 * Validates an /auth/v1 body the way GoTrue does: fields it does not know are ignored
 * (supabase-js sends `gotrue_meta_security` and PKCE fields), a field set to null counts as left out
 * (supabase-js sends `code_challenge: null`), bad ones give a 400 `validation_failed`.
 */
export function parseGoTrueBody<T extends object>(type: new () => T, body: unknown): T {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new GoTrueError(400, 'validation_failed', 'Request body must be a JSON object');
  }
  const value = plainToInstance(type, Object.fromEntries(Object.entries(body).filter(([, field]) => field !== null)));
  const errors = validateSync(value, { whitelist: true, forbidNonWhitelisted: false });
  if (errors.length > 0) {
    const first = errors[0].children?.length ? errors[0].children[0] : errors[0];
    const name = errors[0] === first ? first.property : `${errors[0].property}.${first.property}`;
    // class-validator lists a field's constraints last-declared first: name the commonest cause plainly.
    const message = first.value === undefined ? `${name} is required` : Object.values(first.constraints ?? {}).pop();
    throw new GoTrueError(400, 'validation_failed', message ?? `${name} is invalid`);
  }
  return value;
}
