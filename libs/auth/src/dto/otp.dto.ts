import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsEmail, IsObject, IsOptional, MaxLength, ValidateNested } from 'class-validator';
import { PkceFields } from '../pkce/pkce.dto.js';
import { SignUpData } from './auth.dto.js';

/** POST /auth/v1/otp (supabase-js `signInWithOtp`): a magic link and code for an address. */
export class OtpBody extends PkceFields {
  @ApiProperty({ description: 'Where to mail the magic link and code', example: 'ada@example.com' })
  @IsEmail({}, { message: 'Unable to validate email address: invalid format' })
  @MaxLength(254)
  email: string;

  @ApiPropertyOptional({
    description:
      'Make an account for a new address (supabase-js `shouldCreateUser`, default true); ' +
      'false mails nothing to an address without a confirmed account',
    default: true,
  })
  @IsOptional()
  @IsBoolean({ message: 'create_user must be a boolean' })
  create_user?: boolean;

  @ApiPropertyOptional({
    type: SignUpData,
    description: 'For a new account: read as sign-up reads it (a customer of `store_id`, …)',
  })
  @IsOptional()
  @IsObject({ message: 'data must be an object' })
  @ValidateNested()
  @Type(() => SignUpData)
  data?: SignUpData;
}
