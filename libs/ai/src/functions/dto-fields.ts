import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsNotEmpty, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { IsLanguageTag } from '@app/core';

/** Body fields several AI functions share, with their validation and OpenAPI description. */

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);
export const STORE_ID_EXAMPLE = '0f8fad5b-d9cb-469f-a165-70867728950e';

/** Free text of 1–50 characters (`tone`, `style`), trimmed. */
export function ShortText(name: string, example: string) {
  return (target: object, property: string) => {
    ApiProperty({ description: `${name}: free text, 1–50 characters`, example, minLength: 1, maxLength: 50 })(
      target,
      property,
    );
    Transform(trim)(target, property);
    IsString()(target, property);
    IsNotEmpty()(target, property);
    MaxLength(50)(target, property);
  };
}

/** Text of 1–`max` characters, trimmed. */
export function Text(description: string, example: string, max: number) {
  return (target: object, property: string) => {
    ApiProperty({ description: `${description}, 1–${max} characters`, example, minLength: 1, maxLength: max })(
      target,
      property,
    );
    Transform(trim)(target, property);
    IsString()(target, property);
    IsNotEmpty()(target, property);
    MaxLength(max)(target, property);
  };
}

/** The language of the answer: a BCP 47 tag (the provider may still refuse it, 422). */
export function Language() {
  return (target: object, property: string) => {
    ApiProperty({ description: 'BCP 47 language tag of the answer', example: 'en' })(target, property);
    IsString()(target, property);
    IsLanguageTag()(target, property);
  };
}

/** `store_id`, the store charged for the call. */
export function ChargedStore() {
  return (target: object, property: string) => {
    ApiProperty({ format: 'uuid', description: 'The store charged for the call', example: STORE_ID_EXAMPLE })(
      target,
      property,
    );
    IsUUID()(target, property);
  };
}

/** An optional `store_id`: the caller's only store when left out. */
export function OptionalChargedStore() {
  return (target: object, property: string) => {
    ApiPropertyOptional({
      format: 'uuid',
      description: 'Charged store; optional when the caller has exactly one store',
      example: STORE_ID_EXAMPLE,
    })(target, property);
    IsOptional()(target, property);
    IsUUID()(target, property);
  };
}
