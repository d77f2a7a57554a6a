import { Controller } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import { ApiFunctionRoute, StoreScoped, Body } from '@app/core';
import { SocialPlatformList } from '@app/social';
import { CurrentAiCall, type AiCall } from '../ai-function.js';
import { ChargedRoute } from '../charged.decorator.js';
import { OptionalChargedStore, Text } from '../dto-fields.js';
import { RESEARCH_SOCIAL_CONTEXT, ResearchSocialContextCommand } from './research-social-context.command.js';
import { ApiResearchSocialContext } from './research-social-context.openapi.js';

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

  @ChargedRoute(RESEARCH_SOCIAL_CONTEXT)
  @StoreScoped({ from: 'body', need: 'ai', customers: false, optional: true })
  @ApiResearchSocialContext()
  async researchSocialContext(@Body() body: ResearchSocialContextDto, @CurrentAiCall() call: AiCall) {
    return { success: true, ...(await this.commands.execute(new ResearchSocialContextCommand(call, body))) };
  }
}
