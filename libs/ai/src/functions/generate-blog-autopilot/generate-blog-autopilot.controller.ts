import { Controller } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { ApiFunctionRoute, StoreScoped, Body } from '@app/core';
import { CurrentAiCall, type AiCall } from '../ai-function.js';
import { ChargedRoute } from '../charged.decorator.js';
import { ChargedStore, Language, ShortText, Text } from '../dto-fields.js';
import { GENERATE_BLOG_AUTOPILOT, GenerateBlogAutopilotCommand } from './generate-blog-autopilot.command.js';
import { ARTICLE_LENGTHS, type ArticleLength } from './generate-blog-autopilot.task.js';
import { ApiGenerateBlogAutopilot } from './generate-blog-autopilot.openapi.js';

export class GenerateBlogAutopilotDto {
  @Text('What the article is about', 'How to care for linen shirts', 200)
  topic!: string;

  @ShortText('Tone of voice', 'friendly')
  tone!: string;

  @ApiProperty({
    enum: ARTICLE_LENGTHS,
    description: 'short ≈ 300 words, medium ≈ 750, long ≈ 1400',
    example: 'medium',
  })
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

  @ChargedRoute(GENERATE_BLOG_AUTOPILOT)
  @StoreScoped({ from: 'body', need: 'ai', customers: false })
  @ApiGenerateBlogAutopilot()
  async generateBlogAutopilot(@Body() body: GenerateBlogAutopilotDto, @CurrentAiCall() call: AiCall) {
    return { success: true, ...(await this.commands.execute(new GenerateBlogAutopilotCommand(call, body))) };
  }
}
