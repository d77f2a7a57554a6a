import { applyDecorators } from '@nestjs/common';
import { ApiOperation, ApiParam } from '@nestjs/swagger';
import { ApiEnvelope, ApiPage } from '@app/core';
import { CustomerView } from './customer.js';

/** POST /functions/v1/stores/{store_id}/customers */
export const ApiCreateCustomer = () =>
  applyDecorators(
    ApiParam({ name: 'store_id', format: 'uuid' }),
    ApiOperation({
      summary: 'Create a customer',
      description:
        'Staff only. Fires `customer.created` with `{customer_id, name, email}`. The record has no account ' +
        '(`user_id: null`) and keeps none: a customer sign-up with its e-mail is refused (422 ' +
        '`user_already_exists`), since sign-up does not verify e-mail addresses and linking would hand a stranger ' +
        'the record and its orders.',
    }),
    ApiEnvelope(201, { customer: CustomerView }),
  );

/** GET /functions/v1/stores/{store_id}/customers */
export const ApiListCustomers = () =>
  applyDecorators(
    ApiParam({ name: 'store_id', format: 'uuid' }),
    ApiOperation({
      summary: "A store's customers, newest first",
      description: 'Staff only. Filter: `q` (name or e-mail, case-insensitive).',
    }),
    ApiPage(CustomerView),
  );

/** GET /functions/v1/customers/{customer_id} */
export const ApiGetCustomer = () =>
  applyDecorators(
    ApiParam({ name: 'customer_id', format: 'uuid' }),
    ApiOperation({ summary: 'One customer', description: 'Staff with `customers`, or the customer itself.' }),
    ApiEnvelope(200, { customer: CustomerView }),
  );

/** PATCH /functions/v1/customers/{customer_id} */
export const ApiUpdateCustomer = () =>
  applyDecorators(
    ApiParam({ name: 'customer_id', format: 'uuid' }),
    ApiOperation({
      summary: 'Change a customer',
      description:
        'Staff with `customers`, or the customer itself. Fires `customer.updated` once, with the data after the ' +
        'change, when name, e-mail or phone actually change; a request that changes nothing answers the record ' +
        'and fires nothing. `phone: null` removes the phone number. Changing `email` changes the customer record ' +
        'only: the e-mail the customer signs in with (its account at /auth/v1) stays as it was.',
    }),
    ApiEnvelope(200, { customer: CustomerView }),
  );
