import { AiFunctionCommand, defineAiFunction } from '../ai-function.js';
import type { ResearchSocialContextDto } from './research-social-context.controller.js';
import type { InsightsDraft } from './research-social-context.task.js';

/** `POST /functions/v1/research-social-context`: 2 credits, at most 30 calls per store and hour. */
export const RESEARCH_SOCIAL_CONTEXT = defineAiFunction({ name: 'research-social-context', credits: 2, hourlyLimit: 30 });

export interface ResearchSocialContextAnswer {
  insights: InsightsDraft;
  ai_credits_used: number;
}

export class ResearchSocialContextCommand extends AiFunctionCommand<ResearchSocialContextDto, ResearchSocialContextAnswer> {}
