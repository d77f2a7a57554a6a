import { Module } from '@nestjs/common';
import { StoreAccessModule } from '@app/core';
import { ProductRepository } from '../products/product.repository.js';
import { OrderCommandHandlers } from './commands/index.js';
import { OrderRepository } from './order.repository.js';
import { OrdersController } from './orders.controller.js';
import { OrderQueryHandlers } from './queries/index.js';

/**
 * Orders: placing (prices from the catalog, stock reserved all or nothing, gapless numbers per
 * store), reading, and the status machine with its events. The product repository is stateless;
 * this module provides its own instance because CommerceModule, which declares it, imports this one.
 */
@Module({
  imports: [StoreAccessModule],
  controllers: [OrdersController],
  providers: [OrderRepository, ProductRepository, ...OrderCommandHandlers, ...OrderQueryHandlers],
})
export class OrdersModule {}
