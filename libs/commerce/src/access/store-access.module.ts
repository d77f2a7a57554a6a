import { Module } from '@nestjs/common';
import { StoreAccessGuard } from './store-access.guard.js';
import { StoreAccessService } from './store-access.service.js';

/** The `@StoreScoped` guard and its lookups, for every module with store-scoped routes. */
@Module({
  providers: [StoreAccessService, StoreAccessGuard],
  exports: [StoreAccessService, StoreAccessGuard],
})
export class StoreAccessModule {}
