import { Module } from '@nestjs/common';
import { RegisterStoreCustomerHandler } from './commands/register-store-customer/register-store-customer.handler.js';
import { CustomerRepository } from './customer.repository.js';

/** Customers of a store: created by staff or by signing up; read and changed by staff or by themselves. */
@Module({
  providers: [CustomerRepository, RegisterStoreCustomerHandler],
  exports: [CustomerRepository],
})
export class CustomersModule {}
