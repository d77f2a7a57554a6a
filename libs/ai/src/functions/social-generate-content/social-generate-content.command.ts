import { AiFunctionCommand, defineAiFunction } from '../ai-function.js';
import type { SocialGenerateContentDto } from './social-generate-content.controller.js';

/** `POST /functions/v1/social-generate-content`: 1 credit, at most 60 calls per store and hour. */
export const SOCIAL_GENERATE_CONTENT = defineAiFunction({ name: 'social-generate-content', credits: 1, hourlyLimit: 60 });

export interface SocialGenerateContentAnswer {
  content: { text: string; hashtags: string[]; suggested_time: string };
  ai_credits_used: number;
}

export class SocialGenerateContentCommand extends AiFunctionCommand<SocialGenerateContentDto, SocialGenerateContentAnswer> {}
