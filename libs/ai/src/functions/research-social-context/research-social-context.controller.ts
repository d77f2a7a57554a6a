import { Body, Controller } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiFunctionRoute, StoreScoped } from '@app/core';
import { SocialPlatformList } from '@app/social';
import { creditsUsed, CurrentAiCall, type AiCall } from '../ai-function.js';
import { ChargedRoute } from '../charged.decorator.js';
import { OptionalChargedStore, Text } from '../dto-fields.js';
import { RESEARCH_SOCIAL_CONTEXT, ResearchSocialContextCommand, SocialInsights } from './research-social-context.command.js';

export class ResearchSocialContextDto {
  @Text('What to research', 'sustainable sneakers', 200)
  query!: string;

  @SocialPlatformList({ description: 'distinct platform ids', example: ['instagram', 'tiktok'] })
  platforms!: string[];

  @OptionalChargedStore()
  store_id?: string;
}

@ApiTags('ai')
@ApiFunctionRoute()
@Controller('functions/v1')
export class ResearchSocialContextController {
  constructor(private readonly commands: CommandBus) {}

  @ChargedRoute(
    RESEARCH_SOCIAL_CONTEXT,
    'Research social media context',
    'Trending topics, popular hashtags (each beginning with `#`), audience sentiment and recommendations for `query` on ' +
      '`platforms`. `store_id` may be left out when the caller has exactly one store.',
  )
  @StoreScoped({ from: 'body', need: 'ai', customers: false, optional: true })
  @ApiEnvelope(200, { insights: SocialInsights, ai_credits_used: creditsUsed(RESEARCH_SOCIAL_CONTEXT) })
  async researchSocialContext(@Body() body: ResearchSocialContextDto, @CurrentAiCall() call: AiCall) {
    return { success: true, ...(await this.commands.execute(new ResearchSocialContextCommand(call, body))) };
  }
}
