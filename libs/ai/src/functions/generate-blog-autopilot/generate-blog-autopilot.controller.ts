import { Body, Controller } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { ApiEnvelope, ApiFunctionRoute, StoreScoped } from '@app/core';
import { creditsUsed, CurrentAiCall, type AiCall } from '../ai-function.js';
import { ApiLanguageRefused, ChargedRoute } from '../charged.decorator.js';
import { ChargedStore, Language, ShortText, Text } from '../dto-fields.js';
import { GENERATE_BLOG_AUTOPILOT, GenerateBlogAutopilotCommand, GeneratedArticle } from './generate-blog-autopilot.command.js';
import { ARTICLE_LENGTHS, type ArticleLength } from './generate-blog-autopilot.task.js';

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

  @ChargedStore()
  store_id!: string;
}

@ApiTags('ai')
@ApiFunctionRoute()
@Controller('functions/v1')
export class GenerateBlogAutopilotController {
  constructor(private readonly commands: CommandBus) {}

  @ChargedRoute(
    GENERATE_BLOG_AUTOPILOT,
    'Write a blog article',
    'Writes an article on `topic` in `tone` and `language`; `length` short ≈ 300 words, medium ≈ 750, long ≈ 1400. ' +
      '`content` is sanitised HTML (headings, paragraphs, lists, links; no scripts, styles or event handlers).',
  )
  @StoreScoped({ from: 'body', need: 'ai', customers: false })
  @ApiLanguageRefused()
  @ApiEnvelope(200, { article: GeneratedArticle, ai_credits_used: creditsUsed(GENERATE_BLOG_AUTOPILOT) })
  async generateBlogAutopilot(@Body() body: GenerateBlogAutopilotDto, @CurrentAiCall() call: AiCall) {
    return { success: true, ...(await this.commands.execute(new GenerateBlogAutopilotCommand(call, body))) };
  }
}
