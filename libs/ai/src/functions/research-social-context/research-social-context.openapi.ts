import { applyDecorators } from '@nestjs/common';
import { ApiEnvelope } from '@app/core';
import { creditsUsed } from '../ai-function.js';
import { ApiCharged } from '../charged.decorator.js';
import { RESEARCH_SOCIAL_CONTEXT, SocialInsights } from './research-social-context.command.js';

/** POST /functions/v1/research-social-context (a charged AI function) */
export const ApiResearchSocialContext = () =>
  applyDecorators(
    ApiCharged(
      RESEARCH_SOCIAL_CONTEXT,
      'Research social media context',
      'Trending topics, popular hashtags (each beginning with `#`), audience sentiment and recommendations for ' +
        '`query` on `platforms`. `store_id` may be left out when the caller has exactly one store.',
    ),
    ApiEnvelope(200, { insights: SocialInsights, ai_credits_used: creditsUsed(RESEARCH_SOCIAL_CONTEXT) }),
  );
