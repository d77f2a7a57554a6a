import { ApiProperty } from '@nestjs/swagger';
import { AiFunctionCommand, defineAiFunction } from '../ai-function.js';
import type { SocialGenerateContentDto } from './social-generate-content.controller.js';

/** `POST /functions/v1/social-generate-content`: 1 credit, at most 60 calls per store and hour. */
export const SOCIAL_GENERATE_CONTENT = defineAiFunction({
  name: 'social-generate-content',
  credits: 1,
  hourlyLimit: 60,
});

/** The answer's `content` (`GeneratedSocialContent` in the OpenAPI document). */
export class GeneratedSocialContent {
  @ApiProperty({
    description: 'The post without its hashtags, plain text',
    example: 'Our midnight blue mug keeps your coffee hot and your mornings calm. Now 24.90 USD.',
  })
  text!: string;
  @ApiProperty({
    type: [String],
    pattern: '^#\\S+$',
    description:
      "Hashtags, each beginning with `#`: `text`, a blank line and these joined by spaces fit the platform's limit",
    example: ['#mug', '#ceramics', '#coffee'],
  })
  hashtags!: string[];
  @ApiProperty({
    format: 'date-time',
    description: "The next good slot for the platform in the store's time zone, at least 30 minutes ahead (UTC)",
    example: '2026-11-23T11:00:00.000Z',
  })
  suggested_time!: string;
}

export interface SocialGenerateContentAnswer {
  content: GeneratedSocialContent;
  ai_credits_used: number;
}

export class SocialGenerateContentCommand extends AiFunctionCommand<
  SocialGenerateContentDto,
  SocialGenerateContentAnswer
> {}
