import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { SOCIAL_PLATFORMS, type SocialPlatformId } from '../platforms/registry.js';
import type { MediaItem, PostContent } from '../platforms/social-platform.js';
import { POST_STATUSES, type PostStatus } from '../social.dto.js';
import type { PostResultRow, ResultStatus, SocialPostRow } from '../social.repository.js';
import { isoTimestamp } from '@app/core';

const iso = (value: Date | string | null) => (value === null ? null : isoTimestamp(new Date(value)));

const RESULT_STATUSES = ['pending', 'published', 'failed', 'cancelled'] as const satisfies readonly ResultStatus[];
const POST_ID = '3d6f0a1e-8c2b-4f5d-9e7a-1b2c3d4e5f60';
const PLATFORM_POST_ID = {
  type: 'string',
  nullable: true,
  description: 'The platform-prefixed id of the published post (`x_1790…`); null until published',
  example: 'x_1790123456789012345',
} as const;
const PLATFORM_URL = {
  type: 'string',
  nullable: true,
  description: "The published post's URL; null until published",
  example: 'https://x.com/i/web/status/1790123456789012345',
} as const;

/** Why a platform failed a post. */
export class SocialPostError {
  @ApiProperty({ description: "The platform's or the service's code", example: 'rate_limited' })
  code!: string;
  @ApiProperty({ example: 'X answered 429: too many requests' })
  message!: string;
}

/** One platform's item in `social-publish` answers (`PublishResultView` in the OpenAPI document). */
export class PublishResultView {
  @ApiProperty({ enum: SOCIAL_PLATFORMS, example: 'x' })
  platform!: SocialPlatformId;
  @ApiProperty({
    enum: [...RESULT_STATUSES, 'scheduled'],
    description: 'Published now: `published` or `failed`; with `schedule_at`: `scheduled`',
    example: 'published',
  })
  status!: ResultStatus | 'scheduled';
  @ApiProperty({
    type: 'string',
    nullable: true,
    description:
      "Platform-prefixed (`x_1790…`) once published; the scheduled post's id while scheduled; null otherwise",
    example: 'x_1790123456789012345',
  })
  post_id!: string | null;
  @ApiProperty(PLATFORM_URL)
  url!: string | null;
  @ApiPropertyOptional({
    format: 'date-time',
    description: 'When a scheduled post will be published',
    example: '2026-12-01T09:00:00.000Z',
  })
  scheduled_at?: string;
  @ApiPropertyOptional({ type: SocialPostError, description: 'Only on `failed`' })
  error?: { code: string; message: string };
}

/** The answer of `social-publish`: `success` is false when a platform failed (the status is still 200). */
export class SocialPublishAnswer {
  @ApiProperty({
    description: 'True when every platform published (or the post was scheduled); false when any failed',
    example: true,
  })
  success!: boolean;
  @ApiProperty({ type: [PublishResultView], description: 'One per platform, in the order asked for' })
  results!: PublishResultView[];
}

/** An image or a video of a post. */
export class SocialPostMedia implements MediaItem {
  @ApiProperty({ enum: ['image', 'video'], example: 'image' })
  type!: 'image' | 'video';
  @ApiProperty({ example: 'https://images.example.com/mug.jpg' })
  url!: string;
}

/** What a post says. */
export class SocialPostContent implements PostContent {
  @ApiProperty({ example: 'Our new mug is here' })
  text!: string;
  @ApiProperty({ type: [SocialPostMedia], example: [] })
  media!: SocialPostMedia[];
  @ApiProperty({ type: 'string', nullable: true, description: 'The link shared with the post, if any', example: null })
  link!: string | null;
}

/** One platform's outcome of a post. */
export class SocialPostResult {
  @ApiProperty({ enum: SOCIAL_PLATFORMS, example: 'x' })
  platform!: SocialPlatformId;
  @ApiProperty({ enum: RESULT_STATUSES, example: 'published' })
  status!: ResultStatus;
  @ApiProperty(PLATFORM_POST_ID)
  post_id!: string | null;
  @ApiProperty(PLATFORM_URL)
  url!: string | null;
  // Inline rather than a `$ref`: in OpenAPI 3.0 `nullable` beside `allOf: [$ref]` would not let null through.
  @ApiProperty({
    type: 'object',
    nullable: true,
    required: ['code', 'message'],
    properties: {
      code: { type: 'string', example: 'rate_limited' },
      message: { type: 'string', example: 'X answered 429: too many requests' },
    },
    description: 'Why the platform failed (`code`, `message`); null otherwise',
    example: null,
  })
  error!: { code: string; message: string } | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: '2026-11-22T10:00:01.000Z' })
  published_at!: string | null;
}

/** A post with its per-platform results (`SocialPostView` in the OpenAPI document). */
export class SocialPostView {
  @ApiProperty({ format: 'uuid', example: POST_ID })
  id!: string;
  @ApiProperty({ format: 'uuid', example: '0f8fad5b-d9cb-469f-a165-70867728950e' })
  store_id!: string;
  @ApiProperty({ enum: SOCIAL_PLATFORMS, isArray: true, example: ['x'] })
  platforms!: SocialPlatformId[];
  @ApiProperty({ type: SocialPostContent })
  content!: PostContent;
  @ApiProperty({ enum: POST_STATUSES, example: 'published' })
  status!: PostStatus;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'When a scheduled post is (or was) due; null for one published at once',
    example: null,
  })
  scheduled_at!: string | null;
  @ApiProperty({ type: 'integer', description: 'Publishing attempts so far', example: 1 })
  attempts!: number;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  created_at!: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: '2026-11-22T10:00:01.000Z' })
  finished_at!: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: null })
  cancelled_at!: string | null;
  @ApiProperty({ type: [SocialPostResult] })
  results!: SocialPostResult[];
}

export function toResultView(result: PostResultRow): PublishResultView {
  const view: PublishResultView = {
    platform: result.platform,
    status: result.status,
    post_id: result.platform_post_id,
    url: result.url,
  };
  if (result.status === 'failed')
    view.error = { code: result.error_code ?? 'failed', message: result.error_message ?? 'Publishing failed' };
  return view;
}

export function toPostView(post: SocialPostRow, results: PostResultRow[]): SocialPostView {
  return {
    id: post.id,
    store_id: post.store_id,
    platforms: post.platforms,
    content: post.content,
    status: post.status,
    scheduled_at: iso(post.scheduled_at),
    attempts: post.attempts,
    created_at: iso(post.created_at)!,
    finished_at: iso(post.finished_at),
    cancelled_at: iso(post.cancelled_at),
    results: results
      .filter((result) => result.post_id === post.id)
      .map((result) => ({
        platform: result.platform,
        status: result.status,
        post_id: result.platform_post_id,
        url: result.url,
        error: result.error_code ? { code: result.error_code, message: result.error_message ?? '' } : null,
        published_at: iso(result.published_at),
      })),
  };
}

/** A finished post's status from its results. */
export function finalStatus(results: PostResultRow[]): 'published' | 'partially_published' | 'failed' {
  const published = results.filter((result) => result.status === 'published').length;
  if (published === results.length) return 'published';
  return published > 0 ? 'partially_published' : 'failed';
}
