import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  IsUUID,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { PageQueryDto } from '@app/core';
import { SocialPlatformField, SocialPlatformList } from './platform-fields.js';
import type { SocialPlatformId } from './platforms/registry.js';

const STORE_ID = '0f8fad5b-d9cb-469f-a165-70867728950e';
const HTTP_URL = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };
export const MAX_URL_LENGTH = 2048;
/** The longest text any platform takes (Facebook); each platform's own limit is checked per platform. */
export const MAX_POST_TEXT = 63_206;
export const MAX_MEDIA_ITEMS = 10;
export const POST_STATUSES = [
  'scheduled',
  'publishing',
  'published',
  'partially_published',
  'failed',
  'cancelled',
] as const;
export type PostStatus = (typeof POST_STATUSES)[number];

export class SocialConnectDto {
  @SocialPlatformField({ description: 'The platform to connect', example: 'x' })
  platform!: SocialPlatformId;

  @ApiProperty({ format: 'uuid', description: 'The store the account is connected to', example: STORE_ID })
  @IsUUID()
  store_id!: string;

  @ApiProperty({
    description:
      'Where the browser is sent back after the platform, with `platform`, `status` ' +
      'and `account` or `error`; its origin must be on ALLOWED_REDIRECT_ORIGINS',
    example: 'http://localhost:5173/settings/social',
    maxLength: MAX_URL_LENGTH,
  })
  @IsString()
  @MaxLength(MAX_URL_LENGTH)
  @IsUrl(HTTP_URL, { message: 'redirect_url must be an http(s) URL' })
  redirect_url!: string;
}

export class StoreQueryDto {
  @ApiProperty({ format: 'uuid', description: 'The store', example: STORE_ID })
  @IsUUID()
  store_id!: string;
}

export class MediaDto {
  @ApiProperty({ enum: ['image', 'video'], description: 'What the URL holds', example: 'image' })
  @IsIn(['image', 'video'], { message: 'type must be image or video' })
  type!: 'image' | 'video';

  @ApiProperty({
    description: 'A public http(s) URL the platform can fetch',
    example: 'https://images.example.com/mug.jpg',
  })
  @IsString()
  @MaxLength(MAX_URL_LENGTH)
  @IsUrl(HTTP_URL, { message: 'url must be an http(s) URL' })
  url!: string;
}

export class PostContentDto {
  @ApiProperty({
    description: "The post's text; each platform's limit is checked for that platform",
    example: 'Our new mug is here ☕',
  })
  @IsString()
  @MaxLength(MAX_POST_TEXT)
  text!: string;

  @ApiPropertyOptional({ type: [MediaDto], description: `Up to ${MAX_MEDIA_ITEMS} images or videos`, example: [] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_MEDIA_ITEMS)
  @ValidateNested({ each: true })
  @Type(() => MediaDto)
  media?: MediaDto[];

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    maxLength: MAX_URL_LENGTH,
    description: 'A link to share with the post (http or https); null or absent: none',
    example: 'https://shop.example.com/mug',
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_URL_LENGTH)
  @IsUrl(HTTP_URL, { message: 'link must be an http(s) URL' })
  link?: string | null;
}

export class SocialPublishDto {
  @ApiProperty({ format: 'uuid', description: 'The store whose connected accounts publish', example: STORE_ID })
  @IsUUID()
  store_id!: string;

  @SocialPlatformList({ description: 'distinct platforms, each connected for the store', example: ['x'] })
  platforms!: SocialPlatformId[];

  @ApiProperty({
    type: PostContentDto,
    description: 'What to publish',
    example: {
      text: 'Our new mug is here ☕',
      media: [{ type: 'image', url: 'https://images.example.com/mug.jpg' }],
      link: null,
    },
  })
  @IsObject({ message: 'content must be an object {text, media, link}' })
  @ValidateNested()
  @Type(() => PostContentDto)
  content!: PostContentDto;

  @ApiPropertyOptional({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description:
      'Publish at this time (ISO 8601 with a zone, in the future, at most a year ahead); null or absent: now',
    example: '2026-12-01T09:00:00Z',
  })
  @ValidateIf((_, value) => value !== null && value !== undefined)
  @IsISO8601({ strict: true }, { message: 'schedule_at must be an ISO 8601 timestamp' })
  schedule_at?: string | null;
}

export class SocialPostsQueryDto extends PageQueryDto {
  @ApiProperty({ format: 'uuid', description: 'The store', example: STORE_ID })
  @IsUUID()
  store_id!: string;

  @ApiPropertyOptional({ enum: POST_STATUSES, description: 'Only posts in this status', example: 'scheduled' })
  @IsOptional()
  @IsIn(POST_STATUSES, { message: `status must be one of ${POST_STATUSES.join(', ')}` })
  status?: PostStatus;
}
