import { Module } from '@nestjs/common';
import { BillingModule } from '@app/billing';
import { StoreAccessModule } from '@app/commerce';
import { CoverStore } from './covers/cover-store.js';
import { CoversController } from './covers/covers.controller.js';
import { AiController } from './functions/ai.controller.js';
import { AiService } from './functions/ai.service.js';
import { ProductImageFetcher } from './functions/product-image.fetcher.js';
import { AI_PROVIDER_PROVIDER } from './providers/ai-provider.factory.js';

/** The five AI functions, their providers (local or OpenAI-compatible) and the served covers. */
@Module({
  imports: [StoreAccessModule, BillingModule],
  controllers: [AiController, CoversController],
  providers: [AiService, ProductImageFetcher, CoverStore, AI_PROVIDER_PROVIDER],
})
export class AiModule {}
