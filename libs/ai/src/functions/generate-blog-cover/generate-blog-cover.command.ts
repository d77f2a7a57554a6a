import { AiFunctionCommand, defineAiFunction } from '../ai-function.js';
import type { GenerateBlogCoverDto } from './generate-blog-cover.controller.js';

/** `POST /functions/v1/generate-blog-cover`: 3 credits, at most 50 calls per store and hour. */
export const GENERATE_BLOG_COVER = defineAiFunction({ name: 'generate-blog-cover', credits: 3, hourlyLimit: 50 });

export interface GenerateBlogCoverAnswer {
  image_url: string;
  ai_credits_used: number;
}

export class GenerateBlogCoverCommand extends AiFunctionCommand<GenerateBlogCoverDto, GenerateBlogCoverAnswer> {}
