import { Module } from '@nestjs/common';
import { StoreAccessGuard } from '../access/store-access.guard.js';
import { StoreAccessService } from '../access/store-access.service.js';
import { CustomerCommandHandlers } from './commands/index.js';
import { CustomerRepository } from './customer.repository.js';
import { CustomersController } from './customers.controller.js';
import { CustomerQueryHandlers } from './queries/index.js';

/** Customers of a store: created by staff or by signing up; read and changed by staff or by themselves. */
@Module({
  controllers: [CustomersController],
  providers: [CustomerRepository, StoreAccessService, StoreAccessGuard, ...CustomerCommandHandlers, ...CustomerQueryHandlers],
  exports: [CustomerRepository],
})
export class CustomersModule {}
