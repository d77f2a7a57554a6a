import { CreateCustomerHandler } from './create-customer/create-customer.handler.js';
import { RegisterStoreCustomerHandler } from './register-store-customer/register-store-customer.handler.js';
import { UpdateCustomerHandler } from './update-customer/update-customer.handler.js';

export const CustomerCommandHandlers = [CreateCustomerHandler, UpdateCustomerHandler, RegisterStoreCustomerHandler];
