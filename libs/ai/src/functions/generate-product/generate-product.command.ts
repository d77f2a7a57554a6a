import { ApiProperty } from '@nestjs/swagger';
import { AiFunctionCommand, creditsUsed, defineAiFunction } from '../ai-function.js';
import type { GenerateProductDto } from './generate-product.controller.js';
import type { ProductDraft } from './generate-product.task.js';

/** `POST /functions/v1/generate-product`: 2 credits, at most 100 calls per store and hour. */
export const GENERATE_PRODUCT = defineAiFunction({ name: 'generate-product', credits: 2, hourlyLimit: 100 });

/** The answer's `product`: the drafted fields and what the call cost (`GeneratedProduct` in the OpenAPI document). */
export class GeneratedProduct implements ProductDraft {
  @ApiProperty({ description: 'The product name, in `language`', example: 'Mug en céramique bleu nuit' })
  name!: string;
  @ApiProperty({ description: 'The product name in English', example: 'Midnight blue ceramic mug' })
  name_en!: string;
  @ApiProperty({
    description: 'A selling description for the store page, plain text, in `language`',
    example: 'A glazed ceramic mug in deep midnight blue…',
  })
  description!: string;
  @ApiProperty({
    description: "A suggested retail price in the store's currency: positive, at most 2 decimals",
    example: 24.9,
  })
  price!: number;
  @ApiProperty({ description: 'A "compare at" price: at least `price`, at most 2 decimals', example: 32 })
  compare_price!: number;
  @ApiProperty({ description: 'A short product category, in `language`', example: 'Maison' })
  category!: string;
  @ApiProperty({
    type: [String],
    minItems: 3,
    maxItems: 10,
    description: 'Search keywords, in `language`',
    example: ['mug', 'céramique', 'bleu'],
  })
  seo_keywords!: string[];
  @ApiProperty(creditsUsed(GENERATE_PRODUCT))
  ai_credits_used!: number;
}

export interface GenerateProductAnswer {
  product: GeneratedProduct;
}

export class GenerateProductCommand extends AiFunctionCommand<GenerateProductDto, GenerateProductAnswer> {}
