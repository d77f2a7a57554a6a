import { Module } from '@nestjs/common';
import { StoreAccessModule } from '@app/core';
import { CoverStore } from './covers/cover-store.js';
import { CoversController } from './covers/covers.controller.js';
import { AiFunctionRunner } from './functions/ai-function.runner.js';
import { AiRepository } from './functions/ai.repository.js';
import { ProductImageFetcher } from './functions/product-image.fetcher.js';
import { AI_FUNCTION_CONTROLLERS, AI_FUNCTION_HANDLERS } from './functions/registry.js';
import { AI_PROVIDER_PROVIDER } from './providers/ai-provider.factory.js';

/**
 * The AI functions (one controller, command and handler each: functions/registry.ts), their
 * providers (local or OpenAI-compatible) and the served covers. Credits are billing's: the handlers
 * ask for charges and refunds on the command bus (functions/credit-commands.ts).
 */
@Module({
  imports: [StoreAccessModule],
  controllers: [...AI_FUNCTION_CONTROLLERS, CoversController],
  providers: [
    AiFunctionRunner,
    AiRepository,
    ProductImageFetcher,
    CoverStore,
    AI_PROVIDER_PROVIDER,
    ...AI_FUNCTION_HANDLERS,
  ],
})
export class AiModule {}
