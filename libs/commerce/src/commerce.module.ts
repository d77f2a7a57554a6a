import { Module, type OnModuleInit } from '@nestjs/common';
import { DomainErrorAnswers, StoreAccessModule } from '@app/core';
import { ApiKeyRepository } from './api-keys/api-key.repository.js';
import { ApiKeysController } from './api-keys/api-keys.controller.js';
import { COMMERCE_ERROR_ANSWERS } from './commerce-errors.http.js';
import { CreateApiKeyHandler } from './api-keys/commands/create-api-key.js';
import { RevokeApiKeyHandler } from './api-keys/commands/revoke-api-key.js';
import { ListApiKeysHandler } from './api-keys/queries/list-api-keys.js';
import { CustomersModule } from './customers/customers.module.js';
import { OrdersModule } from './orders/orders.module.js';
import { MemberCommandHandlers } from './members/commands/index.js';
import { MemberRepository } from './members/member.repository.js';
import { MembersController } from './members/members.controller.js';
import { MemberQueryHandlers } from './members/queries/index.js';
import { ProductCommandHandlers } from './products/commands/index.js';
import { ProductRepository } from './products/product.repository.js';
import { ProductsController } from './products/products.controller.js';
import { ProductQueryHandlers } from './products/queries/index.js';
import { StoreCommandHandlers } from './stores/commands/index.js';
import { StoreQueryHandlers } from './stores/queries/index.js';
import { StoreRepository } from './stores/store.repository.js';
import { StoresController } from './stores/stores.controller.js';
import { StoreMailSettingsController } from './stores/store-mail-settings.controller.js';

/**
 * Stores, their team members and store keys, the catalog (products and inventory), customers and
 * orders. Their refusals are answered over HTTP as commerce-errors.http.ts says.
 */
@Module({
  imports: [StoreAccessModule, CustomersModule, OrdersModule],
  controllers: [
    StoresController,
    StoreMailSettingsController,
    MembersController,
    ProductsController,
    ApiKeysController,
  ],
  providers: [
    StoreRepository,
    MemberRepository,
    ProductRepository,
    ...StoreCommandHandlers,
    ...StoreQueryHandlers,
    ...MemberCommandHandlers,
    ...MemberQueryHandlers,
    ...ProductCommandHandlers,
    ...ProductQueryHandlers,
    ApiKeyRepository,
    CreateApiKeyHandler,
    RevokeApiKeyHandler,
    ListApiKeysHandler,
  ],
  exports: [StoreAccessModule],
})
export class CommerceModule implements OnModuleInit {
  constructor(private readonly domainErrors: DomainErrorAnswers) {}

  onModuleInit(): void {
    this.domainErrors.register(COMMERCE_ERROR_ANSWERS);
  }
}
