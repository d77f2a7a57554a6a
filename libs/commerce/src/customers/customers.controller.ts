import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrorResponse, ApiFunctionRoute, ApiPage, StoreScoped } from '@app/core';
import { CreateCustomerCommand } from './commands/create-customer/create-customer.command.js';
import { UpdateCustomerCommand } from './commands/update-customer/update-customer.command.js';
import { CreateCustomerDto, ListCustomersQuery as ListCustomersParams, UpdateCustomerDto } from './customer.dto.js';
import { CustomerView } from './customer.js';
import { GetCustomerQuery } from './queries/get-customer/get-customer.query.js';
import { ListCustomersQuery } from './queries/list-customers/list-customers.query.js';
import '../store-resources.js'; // registers the store resource its routes name (customer) before they are declared

const EMAIL_TAKEN = ApiErrorResponse(409, 'Another customer of the store has this e-mail (compared regardless of case)', {
  code: 'CONFLICT',
  message: 'This store already has a customer with that e-mail',
});

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
  @ApiParam({ name: 'store_id', format: 'uuid' })
  @StoreScoped({ from: 'param', need: 'customers' })
  @ApiOperation({
    summary: 'Create a customer',
    description:
      'Staff only. Fires `customer.created` with `{customer_id, name, email}`. The record has no account (`user_id: null`) ' +
      'and keeps none: a customer sign-up with its e-mail is refused (422 `user_already_exists`), since sign-up does not ' +
      'verify e-mail addresses and linking would hand a stranger the record and its orders.',
  })
  @ApiEnvelope(201, { customer: CustomerView })
  @EMAIL_TAKEN
  async create(@Param('store_id') storeId: string, @Body() body: CreateCustomerDto) {
    return { success: true, customer: await this.commands.execute(new CreateCustomerCommand(storeId, body)) };
  }

  @Get('stores/:store_id/customers')
  @ApiParam({ name: 'store_id', format: 'uuid' })
  @StoreScoped({ from: 'param', need: 'customers' })
  @ApiOperation({
    summary: "A store's customers, newest first",
    description: 'Staff only. Filter: `q` (name or e-mail, case-insensitive).',
  })
  @ApiPage(CustomerView)
  async list(@Param('store_id') storeId: string, @Query() params: ListCustomersParams) {
    return { success: true, ...(await this.queries.execute(new ListCustomersQuery(storeId, params))) };
  }

  @Get('customers/:customer_id')
  @ApiParam({ name: 'customer_id', format: 'uuid' })
  @StoreScoped({ from: 'customer', need: 'customers', self: true })
  @ApiOperation({ summary: 'One customer', description: 'Staff with `customers`, or the customer itself.' })
  @ApiEnvelope(200, { customer: CustomerView })
  async get(@Param('customer_id') customerId: string) {
    return { success: true, customer: await this.queries.execute(new GetCustomerQuery(customerId)) };
  }

  @Patch('customers/:customer_id')
  @ApiParam({ name: 'customer_id', format: 'uuid' })
  @StoreScoped({ from: 'customer', need: 'customers', self: true })
  @ApiOperation({
    summary: 'Change a customer',
    description:
      'Staff with `customers`, or the customer itself. Fires `customer.updated` once, with the data after the change, ' +
      'when name, e-mail or phone actually change; a request that changes nothing answers the record and fires nothing. ' +
      '`phone: null` removes the phone number. Changing `email` changes the customer record only: the e-mail the ' +
      'customer signs in with (its account at /auth/v1) stays as it was.',
  })
  @ApiEnvelope(200, { customer: CustomerView })
  @EMAIL_TAKEN
  async update(@Param('customer_id') customerId: string, @Body() body: UpdateCustomerDto) {
    return { success: true, customer: await this.commands.execute(new UpdateCustomerCommand(customerId, body)) };
  }
}
