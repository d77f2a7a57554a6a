import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsNotEmpty, IsOptional, IsString, MaxLength, ValidateIf, registerDecorator } from 'class-validator';
import { PageQueryDto } from '@app/core';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

export const MAX_PHONE_LENGTH = 40;
const PHONE_CHARACTERS = /^\+?[0-9 ().-]+$/;

/**
 * A phone number as people write it: digits with an optional leading `+` and spaces, dots, hyphens
 * or parentheses between them; 3 to 15 digits (E.164's maximum), so `+15550100` and `+1 (555) 010-0199` pass.
 */
export function isPhoneNumber(value: unknown): boolean {
  if (typeof value !== 'string' || value.length > MAX_PHONE_LENGTH || !PHONE_CHARACTERS.test(value)) return false;
  const digits = value.replace(/\D/g, '').length;
  return digits >= 3 && digits <= 15;
}

function IsPhone() {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isPhone',
      target: target.constructor,
      propertyName,
      options: {
        message:
          `phone must be a phone number of 3 to 15 digits, optionally starting with + and ` +
          `separated by spaces, dots, hyphens or parentheses, at most ${MAX_PHONE_LENGTH} characters`,
      },
      validator: { validate: isPhoneNumber },
    });
}

const NAME = { description: 'Customer name, 1 to 200 characters (trimmed)', example: 'Grace Hopper' };
const EMAIL = {
  description: 'E-mail address, at most 254 characters (trimmed); unique in the store regardless of case',
  example: 'grace@example.com',
};
const PHONE = {
  type: 'string' as const,
  description:
    'Phone number: 3 to 15 digits, optionally a leading `+` (E.164) and spaces, dots, hyphens ' +
    'or parentheses, at most 40 characters; stored as given (trimmed). `null` means none.',
  example: '+1 555 0100',
  nullable: true,
};

export class CreateCustomerDto {
  @ApiProperty(NAME)
  @Transform(trim)
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name: string;

  @ApiProperty(EMAIL)
  @Transform(trim)
  @IsEmail()
  @MaxLength(254)
  email: string;

  @ApiPropertyOptional(PHONE)
  @IsOptional()
  @Transform(trim)
  @IsPhone()
  phone?: string | null;
}

/** PATCH: any of the fields; `name` and `email` cannot be null, `phone: null` removes the phone number. */
export class UpdateCustomerDto {
  @ApiPropertyOptional(NAME)
  @ValidateIf((_, value) => value !== undefined)
  @Transform(trim)
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional(EMAIL)
  @ValidateIf((_, value) => value !== undefined)
  @Transform(trim)
  @IsEmail()
  @MaxLength(254)
  email?: string;

  @ApiPropertyOptional(PHONE)
  @IsOptional()
  @Transform(trim)
  @IsPhone()
  phone?: string | null;
}

export class ListCustomersQuery extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Case-insensitive text search in name and e-mail', example: 'grace' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  q?: string;
}
