import { Controller, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import { ApiErrorResponse, ApiFunctionRoute, StoreScoped, Body, Query } from '@app/core';
import { CreateCustomerCommand } from './commands/create-customer/create-customer.command.js';
import { UpdateCustomerCommand } from './commands/update-customer/update-customer.command.js';
import { CreateCustomerDto, ListCustomersQuery as ListCustomersParams, UpdateCustomerDto } from './customer.dto.js';
import { GetCustomerQuery } from './queries/get-customer/get-customer.query.js';
import { ListCustomersQuery } from './queries/list-customers/list-customers.query.js';
import { ApiCreateCustomer, ApiListCustomers, ApiGetCustomer, ApiUpdateCustomer } from './customers.openapi.js';
import '../store-resources.js'; // registers the store resource its routes name (customer) before they are declared

const EMAIL_TAKEN = ApiErrorResponse(
  409,
  'Another customer of the store has this e-mail (compared regardless of case)',
  {
    code: 'CONFLICT',
    message: 'This store already has a customer with that e-mail',
  },
);

/**
 * Customers of a store: team members need the `customers` permission; a signed-in customer reads
 * and changes its own record only (another customer's record answers 404).
 */
@ApiTags('customers')
@ApiFunctionRoute()
@Controller('functions/v1')
export class CustomersController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Post('stores/:store_id/customers')
  @HttpCode(201)
  @StoreScoped({ from: 'param', need: 'customers' })
  @EMAIL_TAKEN
  @ApiCreateCustomer()
  async create(@Param('store_id') storeId: string, @Body() body: CreateCustomerDto) {
    return { success: true, customer: await this.commands.execute(new CreateCustomerCommand(storeId, body)) };
  }

  @Get('stores/:store_id/customers')
  @StoreScoped({ from: 'param', need: 'customers' })
  @ApiListCustomers()
  async list(@Param('store_id') storeId: string, @Query() params: ListCustomersParams) {
    return { success: true, ...(await this.queries.execute(new ListCustomersQuery(storeId, params))) };
  }

  @Get('customers/:customer_id')
  @StoreScoped({ from: 'customer', need: 'customers', self: true })
  @ApiGetCustomer()
  async get(@Param('customer_id') customerId: string) {
    return { success: true, customer: await this.queries.execute(new GetCustomerQuery(customerId)) };
  }

  @Patch('customers/:customer_id')
  @StoreScoped({ from: 'customer', need: 'customers', self: true })
  @EMAIL_TAKEN
  @ApiUpdateCustomer()
  async update(@Param('customer_id') customerId: string, @Body() body: UpdateCustomerDto) {
    return { success: true, customer: await this.commands.execute(new UpdateCustomerCommand(customerId, body)) };
  }
}
