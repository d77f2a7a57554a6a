import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayUnique, IsArray, IsEmail, IsIn, IsOptional, IsUrl, MaxLength } from 'class-validator';
import { type Permission, PERMISSIONS } from '@app/core';

export class UpdateMemberDto {
  @ApiProperty({
    description: `What the member may do: any of ${PERMISSIONS.join(', ')} (billing is read-only)`,
    enum: PERMISSIONS,
    isArray: true,
    example: ['catalog', 'orders'],
  })
  @IsArray()
  @ArrayUnique()
  @IsIn(PERMISSIONS, { each: true, message: `each permission must be one of ${PERMISSIONS.join(', ')}` })
  permissions: Permission[];
}

export class InviteMemberDto extends UpdateMemberDto {
  @ApiProperty({
    description:
      "The invitee's e-mail: the invitation is mailed there (an accept " +
      'link); they may also sign up with it and the invite_token',
    example: 'sam@example.com',
  })
  @IsEmail()
  @MaxLength(254)
  email: string;

  @ApiPropertyOptional({
    description:
      "Where the invitation e-mail's accept link sends the invitee's browser, " +
      'signed in; on ALLOWED_REDIRECT_ORIGINS (default AUTH_SITE_URL)',
    example: 'http://localhost:5173/welcome',
  })
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  @MaxLength(2000)
  redirect_to?: string;
}
