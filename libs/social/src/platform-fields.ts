import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsIn } from 'class-validator';
import { SOCIAL_PLATFORMS } from './platforms/registry.js';

/**
 * Request fields that name social platforms, for any lib's DTOs: the OpenAPI enum, the validation and
 * its message come from the platform registry, so no DTO lists platforms itself.
 */

const ONE_OF = `one of ${SOCIAL_PLATFORMS.join(', ')}`;

/** One platform id. */
export function SocialPlatformField(doc: { description: string; example: string }) {
  return (target: object, property: string) => {
    IsIn(SOCIAL_PLATFORMS, { message: `${property} must be ${ONE_OF}` })(target, property);
    ApiProperty({ enum: SOCIAL_PLATFORMS, description: doc.description, example: doc.example })(target, property);
  };
}

/** 1 to all of the platforms, each once; `description` follows the count (`1–6 distinct platform ids`). */
export function SocialPlatformList(doc: { description: string; example: string[] }) {
  return (target: object, property: string) => {
    IsIn(SOCIAL_PLATFORMS, { each: true, message: `each platform must be ${ONE_OF}` })(target, property);
    ArrayUnique()(target, property);
    ArrayMaxSize(SOCIAL_PLATFORMS.length)(target, property);
    ArrayMinSize(1)(target, property);
    IsArray()(target, property);
    ApiProperty({
      enum: SOCIAL_PLATFORMS,
      isArray: true,
      description: `1–${SOCIAL_PLATFORMS.length} ${doc.description}`,
      example: doc.example,
    })(target, property);
  };
}
