import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ApiError } from '@app/core';
import { AiFunctionRunner } from '../ai-function.runner.js';
import { AiRepository } from '../ai.repository.js';
import { ProductImageFetcher } from '../product-image.fetcher.js';
import { GENERATE_PRODUCT, GenerateProductCommand, type GenerateProductAnswer } from './generate-product.command.js';
import { GENERATE_PRODUCT_TASK, normalizeProduct } from './generate-product.task.js';

/** Fetches and reads the photo (422 before any charge), then drafts the product in the store's currency. */
@CommandHandler(GenerateProductCommand)
export class GenerateProductHandler implements ICommandHandler<GenerateProductCommand> {
  constructor(
    private readonly runner: AiFunctionRunner,
    private readonly images: ProductImageFetcher,
    private readonly repository: AiRepository,
  ) {}

  async execute({ call, body }: GenerateProductCommand): Promise<GenerateProductAnswer> {
    const provider = this.runner.providerFor(GENERATE_PRODUCT_TASK, body.language);
    const image = await this.images.fetch(body.image_url);
    const currency = await this.repository.storeCurrency(call.storeId);
    if (currency === null) throw ApiError.notFound('Store');
    return this.runner.charged(GENERATE_PRODUCT, call, async (cost) => {
      const product = normalizeProduct(
        await provider.run(GENERATE_PRODUCT_TASK, { image, language: body.language, currency }),
      );
      return { product: { ...product, ai_credits_used: cost } };
    });
  }
}
