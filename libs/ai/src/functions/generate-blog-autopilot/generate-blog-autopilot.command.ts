import { ApiProperty } from '@nestjs/swagger';
import { AiFunctionCommand, defineAiFunction } from '../ai-function.js';
import type { GenerateBlogAutopilotDto } from './generate-blog-autopilot.controller.js';
import { EXCERPT_MAX, SEO_DESCRIPTION_MAX, SEO_TITLE_MAX, type ArticleDraft } from './generate-blog-autopilot.task.js';

/** `POST /functions/v1/generate-blog-autopilot`: 5 credits, at most 20 calls per store and hour. */
export const GENERATE_BLOG_AUTOPILOT = defineAiFunction({
  name: 'generate-blog-autopilot',
  credits: 5,
  hourlyLimit: 20,
});

/** The answer's `article` (`GeneratedArticle` in the OpenAPI document). */
export class GeneratedArticle implements ArticleDraft {
  @ApiProperty({ description: 'The title, plain text on one line', example: 'How to care for linen shirts' })
  title!: string;
  @ApiProperty({
    description:
      'The article as sanitised HTML: headings, paragraphs, lists and links; no scripts, styles or event handlers',
    example: '<h2>Why linen</h2><p>…</p>',
  })
  content!: string;
  @ApiProperty({
    description: 'A plain-text summary on one line',
    maxLength: EXCERPT_MAX,
    example: 'Linen lasts for years when…',
  })
  excerpt!: string;
  @ApiProperty({
    description: 'The title for search engines, plain text',
    maxLength: SEO_TITLE_MAX,
    example: 'Linen shirt care guide',
  })
  seo_title!: string;
  @ApiProperty({
    description: 'The meta description for search engines, plain text',
    maxLength: SEO_DESCRIPTION_MAX,
    example: 'Wash, dry and iron linen shirts so they last.',
  })
  seo_description!: string;
}

export interface GenerateBlogAutopilotAnswer {
  article: GeneratedArticle;
  ai_credits_used: number;
}

export class GenerateBlogAutopilotCommand extends AiFunctionCommand<
  GenerateBlogAutopilotDto,
  GenerateBlogAutopilotAnswer
> {}
