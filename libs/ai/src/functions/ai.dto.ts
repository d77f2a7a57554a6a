import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUrl,
  IsUUID,
  Matches,
  MaxLength,
} from 'class-validator';
import { IsLanguageTag } from '@app/core';
import { SOCIAL_PLATFORMS } from '@app/social';
import { ARTICLE_LENGTHS, type ArticleLength } from '../providers/ai-provider.js';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);
const STORE_ID = '0f8fad5b-d9cb-469f-a165-70867728950e';
export const MAX_IMAGE_URL_LENGTH = 2048;
const HEX_COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

/** Free text of 1–50 characters (`tone`, `style`), trimmed. */
function ShortText(name: string, example: string) {
  return (target: object, property: string) => {
    ApiProperty({ description: `${name}: free text, 1–50 characters`, example, minLength: 1, maxLength: 50 })(target, property);
    Transform(trim)(target, property);
    IsString()(target, property);
    IsNotEmpty()(target, property);
    MaxLength(50)(target, property);
  };
}

function Text(description: string, example: string, max: number) {
  return (target: object, property: string) => {
    ApiProperty({ description: `${description}, 1–${max} characters`, example, minLength: 1, maxLength: max })(target, property);
    Transform(trim)(target, property);
    IsString()(target, property);
    IsNotEmpty()(target, property);
    MaxLength(max)(target, property);
  };
}

function Language() {
  return (target: object, property: string) => {
    ApiProperty({ description: 'BCP 47 language tag of the answer', example: 'en' })(target, property);
    IsString()(target, property);
    IsLanguageTag()(target, property);
  };
}

export class GenerateProductDto {
  @ApiProperty({
    description: `A public http(s) URL of a JPEG, PNG, WebP, GIF or AVIF image, at most 10 MiB and 40 megapixels; fetched by the server`,
    example: 'https://images.example.com/mug.jpg',
    maxLength: MAX_IMAGE_URL_LENGTH,
  })
  @IsString()
  @MaxLength(MAX_IMAGE_URL_LENGTH)
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false }, { message: 'image_url must be an http(s) URL' })
  image_url!: string;

  @ApiProperty({ format: 'uuid', description: 'The store charged for the call', example: STORE_ID })
  @IsUUID()
  store_id!: string;

  @Language()
  language!: string;
}

export class GenerateBlogCoverDto {
  @Text('Title written on the cover', 'Ten summer looks for the beach', 200)
  title!: string;

  @ShortText('Visual style', 'minimal')
  style!: string;

  @ApiProperty({ description: '1–5 hex colours, `#RGB` or `#RRGGBB`', example: ['#0ea5e9', '#f97316'], type: [String] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(5)
  @Matches(HEX_COLOR, { each: true, message: 'each colour must be a hex code such as #0ea5e9 or #f90' })
  colors!: string[];

  @ApiPropertyOptional({ format: 'uuid', description: 'Charged store; optional when the caller has exactly one store', example: STORE_ID })
  @IsOptional()
  @IsUUID()
  store_id?: string;
}

export class GenerateBlogAutopilotDto {
  @Text('What the article is about', 'How to care for linen shirts', 200)
  topic!: string;

  @ShortText('Tone of voice', 'friendly')
  tone!: string;

  @ApiProperty({ enum: ARTICLE_LENGTHS, description: 'short ≈ 300 words, medium ≈ 750, long ≈ 1400', example: 'medium' })
  @IsIn(ARTICLE_LENGTHS)
  length!: ArticleLength;

  @Language()
  language!: string;

  @ApiProperty({ format: 'uuid', description: 'The store charged for the call', example: STORE_ID })
  @IsUUID()
  store_id!: string;
}

export class ResearchSocialContextDto {
  @Text('What to research', 'sustainable sneakers', 200)
  query!: string;

  @ApiProperty({ enum: SOCIAL_PLATFORMS, isArray: true, description: '1–6 distinct platform ids', example: ['instagram', 'tiktok'] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(SOCIAL_PLATFORMS.length)
  @ArrayUnique()
  @IsIn(SOCIAL_PLATFORMS, { each: true, message: `each platform must be one of ${SOCIAL_PLATFORMS.join(', ')}` })
  platforms!: string[];

  @ApiPropertyOptional({ format: 'uuid', description: 'Charged store; optional when the caller has exactly one store', example: STORE_ID })
  @IsOptional()
  @IsUUID()
  store_id?: string;
}

export class SocialGenerateContentDto {
  @ApiProperty({ format: 'uuid', description: "A product of one of the caller's stores (that store is charged)", example: STORE_ID })
  @IsUUID()
  product_id!: string;

  @ApiProperty({ enum: SOCIAL_PLATFORMS, description: 'The platform the post is written for', example: 'instagram' })
  @IsIn(SOCIAL_PLATFORMS, { message: `platform must be one of ${SOCIAL_PLATFORMS.join(', ')}` })
  platform!: string;

  @ShortText('Tone of voice', 'playful')
  tone!: string;

  @Language()
  language!: string;
}
