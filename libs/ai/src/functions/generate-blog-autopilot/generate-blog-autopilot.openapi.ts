import { applyDecorators } from '@nestjs/common';
import { ApiEnvelope } from '@app/core';
import { creditsUsed } from '../ai-function.js';
import { ApiCharged, ApiLanguageRefused } from '../charged.decorator.js';
import { GENERATE_BLOG_AUTOPILOT, GeneratedArticle } from './generate-blog-autopilot.command.js';

/** POST /functions/v1/generate-blog-autopilot (a charged AI function) */
export const ApiGenerateBlogAutopilot = () =>
  applyDecorators(
    ApiCharged(
      GENERATE_BLOG_AUTOPILOT,
      'Write a blog article',
      'Writes an article on `topic` in `tone` and `language`; `length` short ≈ 300 words, medium ≈ 750, long ≈ 1400. ' +
        '`content` is sanitised HTML (headings, paragraphs, lists, links; no scripts, styles or event handlers).',
    ),
    ApiLanguageRefused(),
    ApiEnvelope(200, { article: GeneratedArticle, ai_credits_used: creditsUsed(GENERATE_BLOG_AUTOPILOT) }),
  );
