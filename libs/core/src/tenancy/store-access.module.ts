import { Module } from '@nestjs/common';
import { StoreAccessGuard } from './store-access.guard.js';

/** The `@StoreScoped` guard, for every module with store-scoped routes. */
@Module({
  providers: [StoreAccessGuard],
  exports: [StoreAccessGuard],
})
export class StoreAccessModule {}
