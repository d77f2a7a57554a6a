import { Module } from '@nestjs/common';
import { StoreAccessModule } from '@app/core';
import { CustomerCommandHandlers } from './commands/index.js';
import { CustomerRepository } from './customer.repository.js';
import { CustomersController } from './customers.controller.js';
import { CustomerQueryHandlers } from './queries/index.js';

/** Customers of a store: created by staff or by signing up; read and changed by staff or by themselves. */
@Module({
  imports: [StoreAccessModule],
  controllers: [CustomersController],
  providers: [CustomerRepository, ...CustomerCommandHandlers, ...CustomerQueryHandlers],
  exports: [CustomerRepository],
})
export class CustomersModule {}
