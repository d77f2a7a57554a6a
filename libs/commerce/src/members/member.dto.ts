import { ApiProperty } from '@nestjs/swagger';
import { ArrayUnique, IsArray, IsEmail, IsIn, MaxLength } from 'class-validator';
import { PERMISSIONS, type Permission } from '../access/store-access.js';

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
  @ApiProperty({ description: "The invitee's e-mail; they sign up with it and the invite_token", example: 'sam@example.com' })
  @IsEmail()
  @MaxLength(254)
  email: string;
}
