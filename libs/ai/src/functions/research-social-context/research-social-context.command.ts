import { ApiProperty } from '@nestjs/swagger';
import { AiFunctionCommand, defineAiFunction } from '../ai-function.js';
import type { ResearchSocialContextDto } from './research-social-context.controller.js';
import type { InsightsDraft } from './research-social-context.task.js';

/** `POST /functions/v1/research-social-context`: 2 credits, at most 30 calls per store and hour. */
export const RESEARCH_SOCIAL_CONTEXT = defineAiFunction({
  name: 'research-social-context',
  credits: 2,
  hourlyLimit: 30,
});

/** The answer's `insights` (`SocialInsights` in the OpenAPI document); every text is plain, every list distinct. */
export class SocialInsights implements InsightsDraft {
  @ApiProperty({
    type: [String],
    minItems: 1,
    description: 'Topics people currently talk about around the query',
    example: ['sustainable sneakers', 'recycled materials'],
  })
  trending_topics!: string[];
  @ApiProperty({
    type: [String],
    minItems: 1,
    pattern: '^#\\S+$',
    description: 'Popular hashtags, each beginning with `#`',
    example: ['#sustainablefashion', '#sneakers'],
  })
  popular_hashtags!: string[];
  @ApiProperty({ description: "The audience's sentiment about the query, in a few words", example: 'mostly positive' })
  audience_sentiment!: string;
  @ApiProperty({
    type: [String],
    minItems: 1,
    description: 'Recommendations for posting about the query',
    example: ['Instagram: post carousels of the making-of'],
  })
  recommendations!: string[];
}

export interface ResearchSocialContextAnswer {
  insights: SocialInsights;
  ai_credits_used: number;
}

export class ResearchSocialContextCommand extends AiFunctionCommand<
  ResearchSocialContextDto,
  ResearchSocialContextAnswer
> {}
