import { AiFunctionCommand, defineAiFunction } from '../ai-function.js';
import type { GenerateProductDto } from './generate-product.controller.js';
import type { ProductDraft } from './generate-product.task.js';

/** `POST /functions/v1/generate-product`: 2 credits, at most 100 calls per store and hour. */
export const GENERATE_PRODUCT = defineAiFunction({ name: 'generate-product', credits: 2, hourlyLimit: 100 });

export interface GenerateProductAnswer {
  product: ProductDraft & { ai_credits_used: number };
}

export class GenerateProductCommand extends AiFunctionCommand<GenerateProductDto, GenerateProductAnswer> {}
