import { Module } from '@nestjs/common';
import { StoreAccessModule } from './access/store-access.module.js';
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

/** Stores and their team members (issue 3 adds catalog, inventory, customers and orders). */
@Module({
  imports: [StoreAccessModule, CustomersModule, OrdersModule],
  controllers: [StoresController, MembersController, ProductsController],
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
  ],
  exports: [StoreAccessModule],
})
export class CommerceModule {}
