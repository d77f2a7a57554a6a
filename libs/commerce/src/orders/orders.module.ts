import { Module } from '@nestjs/common';
import { StoreAccessGuard } from '../access/store-access.guard.js';
import { StoreAccessService } from '../access/store-access.service.js';
import { ProductRepository } from '../products/product.repository.js';
import { OrderCommandHandlers } from './commands/index.js';
import { OrderRepository } from './order.repository.js';
import { OrdersController } from './orders.controller.js';
import { OrderQueryHandlers } from './queries/index.js';

/**
 * Orders: placing (prices from the catalog, stock reserved all or nothing, gapless numbers per
 * store), reading, and the status machine with its events. The access guard and the product
 * repository are stateless; this module provides its own instances of them because CommerceModule,
 * which declares them, imports this one.
 */
@Module({
  controllers: [OrdersController],
  providers: [OrderRepository, ProductRepository, StoreAccessService, StoreAccessGuard, ...OrderCommandHandlers, ...OrderQueryHandlers],
})
export class OrdersModule {}
