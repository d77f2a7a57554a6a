import { applyDecorators } from '@nestjs/common';
import { ApiEnvelope } from '@app/core';
import { describeTextLimits } from '@app/social';
import { creditsUsed } from '../ai-function.js';
import { ApiCharged, ApiLanguageRefused } from '../charged.decorator.js';
import { GeneratedSocialContent, SOCIAL_GENERATE_CONTENT } from './social-generate-content.command.js';

/** POST /functions/v1/social-generate-content (a charged AI function) */
export const ApiSocialGenerateContent = () =>
  applyDecorators(
    ApiCharged(
      SOCIAL_GENERATE_CONTENT,
      'Write a social post about a product',
      "Writes a post about `product_id` (a product of the caller's stores; that store is charged) for `platform`. " +
        '`text` is the post without its hashtags; `text`, a blank ' +
        'line and the `hashtags` joined by spaces fit the platform’s ' +
        `limit (${describeTextLimits()}). \`suggested_time\` is the ` +
        "next good slot for the platform in the store's time zone, at least 30 minutes ahead.",
    ),
    ApiLanguageRefused(),
    ApiEnvelope(200, { content: GeneratedSocialContent, ai_credits_used: creditsUsed(SOCIAL_GENERATE_CONTENT) }),
  );
