import { AiFunctionCommand, defineAiFunction } from '../ai-function.js';
import type { GenerateBlogAutopilotDto } from './generate-blog-autopilot.controller.js';
import type { ArticleDraft } from './generate-blog-autopilot.task.js';

/** `POST /functions/v1/generate-blog-autopilot`: 5 credits, at most 20 calls per store and hour. */
export const GENERATE_BLOG_AUTOPILOT = defineAiFunction({ name: 'generate-blog-autopilot', credits: 5, hourlyLimit: 20 });

export interface GenerateBlogAutopilotAnswer {
  article: ArticleDraft;
  ai_credits_used: number;
}

export class GenerateBlogAutopilotCommand extends AiFunctionCommand<GenerateBlogAutopilotDto, GenerateBlogAutopilotAnswer> {}
