import { applyDecorators } from '@nestjs/common';
import { ApiOperation, ApiParam } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrorResponse, ApiPage } from '@app/core';
import { StoreView } from './store.js';

/** POST /functions/v1/stores */
export const ApiCreateStore = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Create a store owned by the caller (merchants and admins)',
      description:
        'The store opens with its AI credit account holding the welcome credits (STORE_WELCOME_CREDITS), in the ' +
        'same transaction. Currency, language and time zone default to USD, en and UTC.',
    }),
    ApiEnvelope(201, { store: StoreView }),
    ApiErrorResponse(403, 'Team members and customers cannot create stores', {
      code: 'FORBIDDEN',
      message: 'Only merchant, admin accounts may do this',
    }),
  );

/** GET /functions/v1/stores */
export const ApiListStores = () =>
  applyDecorators(
    ApiOperation({
      summary: 'The stores the caller can see: owned, member of, customer of (admins: all)',
      description: 'Newest first, paginated with `limit` and `cursor` (`next_cursor`).',
    }),
    ApiPage(StoreView),
  );

/** GET /functions/v1/stores/{store_id} */
export const ApiGetStore = () =>
  applyDecorators(
    ApiParam({ name: 'store_id', format: 'uuid' }),
    ApiOperation({
      summary: 'One store',
      description:
        'Anyone with a relation to the store: its owner, a team member, a ' +
        'customer, or an admin. Others get 404, as for a store that does not exist.',
    }),
    ApiEnvelope(200, { store: StoreView }),
  );

/** PATCH /functions/v1/stores/{store_id} */
export const ApiUpdateStore = () =>
  applyDecorators(
    ApiParam({ name: 'store_id', format: 'uuid' }),
    ApiOperation({
      summary: "Change a store's settings (owner or admin)",
      description:
        'Any of name, currency, default language and time zone; fields left out ' +
        'keep their value. Past orders keep the currency they were placed in.',
    }),
    ApiEnvelope(200, { store: StoreView }),
  );
