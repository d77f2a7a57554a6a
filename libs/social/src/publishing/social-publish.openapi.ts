import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrorResponse, ApiPage } from '@app/core';
import { describePublishingRules } from '../platforms/registry.js';
import { SocialPostView, SocialPublishAnswer } from './social-post.js';

/** POST /functions/v1/social-publish */
export const ApiPublishSocialPost = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Publish a post now, or schedule it',
      description:
        `Every platform is checked first: connected to the store, ` +
        `and the platform's rules (${describePublishingRules()}). Any ` +
        'problem answers 400 with one `details` item per problem, ' +
        'each naming its `platform`, and nothing is sent.\n\n' +
        'Without `schedule_at` the post is published at once: one ' +
        'result per platform, `published` with a platform-prefixed ' +
        "`post_id` and the post's `url`, or `failed` with `error: " +
        '{code, message}`; when any failed the answer is still 200 with ' +
        '`success: false`. An expired token is refreshed and the publish tried once more.\n\n' +
        'With a future `schedule_at` (at most a year ahead) the ' +
        'post is stored and published at that time by a background ' +
        "worker; each result is `scheduled` with the scheduled post's " +
        'id as `post_id`. A scheduled post whose platforms answer ' +
        '429 or 5xx is tried again (SOCIAL_RETRY_DELAYS_MS); a final failure ' +
        'notifies the merchant (`GET /functions/v1/notifications`).\n\n' +
        'Owners, admins, members with the `social` permission, and store keys holding `social` (the post ' +
        'records the key as its author).',
    }),
    ApiOkResponse({
      type: SocialPublishAnswer,
      description: 'Published, failed or scheduled per platform; `success: false` when any platform failed',
    }),
    ApiErrorResponse(400, 'The body is invalid, or a platform cannot take this post; nothing was sent', {
      code: 'VALIDATION_FAILED',
      message: 'The post cannot be published as it is; nothing was sent',
      details: [
        { field: 'content', platform: 'x', message: 'X takes at most 280 weighted characters; this text has 281' },
      ],
    }),
  );

/** DELETE /functions/v1/social-publish/{post_id} */
export const ApiCancelSocialPost = () =>
  applyDecorators(
    ApiParam({ name: 'post_id', format: 'uuid', example: '3d6f0a1e-8c2b-4f5d-9e7a-1b2c3d4e5f60' }),
    ApiOperation({
      summary: 'Cancel a scheduled post',
      description:
        'It is then never published. A post already publishing, ' +
        'published, failed or cancelled answers 409 `NOT_CANCELLABLE`.',
    }),
    ApiEnvelope(200, { message: { type: 'string', example: 'Scheduled post cancelled' } }),
    ApiErrorResponse(409, 'Not scheduled (any more)', {
      code: 'NOT_CANCELLABLE',
      message: 'Only a scheduled post can be cancelled; this one is published',
    }),
  );

/** GET /functions/v1/social-posts */
export const ApiListSocialPosts = () =>
  applyDecorators(
    ApiOperation({
      summary: "A store's posts with their per-platform results, newest first",
      description: 'Paginated with `limit` and `cursor`; `status` filters.',
    }),
    ApiPage(SocialPostView),
  );
