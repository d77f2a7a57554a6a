import { applyDecorators } from '@nestjs/common';
import { ApiOperation, ApiParam } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrorDetailsResponse, ApiPage } from '@app/core';
import { ProductView } from './product.js';

/** POST /functions/v1/stores/{store_id}/products */
export const ApiCreateProduct = () =>
  applyDecorators(
    ApiParam({ name: 'store_id', format: 'uuid' }),
    ApiOperation({
      summary: 'Create a product',
      description:
        'Owner, admin or a team member with `catalog`. A new product is a ' +
        '`draft` unless `status` says otherwise. Fires `product.created`.',
    }),
    ApiEnvelope(201, { product: ProductView }),
  );

/** GET /functions/v1/stores/{store_id}/products */
export const ApiListProducts = () =>
  applyDecorators(
    ApiParam({ name: 'store_id', format: 'uuid' }),
    ApiOperation({
      summary: "A store's products, newest first",
      description:
        'Filters: `status`, `category`, `q` (name or description). ' +
        'Customers and members without `catalog` see active products only.',
    }),
    ApiPage(ProductView),
  );

/** GET /functions/v1/products/{product_id} */
export const ApiGetProduct = () =>
  applyDecorators(
    ApiParam({ name: 'product_id', format: 'uuid' }),
    ApiOperation({
      summary: 'One product',
      description: 'A draft or archived product is 404 for customers and members without `catalog`.',
    }),
    ApiEnvelope(200, { product: ProductView }),
  );

/** PATCH /functions/v1/products/{product_id} */
export const ApiUpdateProduct = () =>
  applyDecorators(
    ApiParam({ name: 'product_id', format: 'uuid' }),
    ApiOperation({
      summary: 'Change a product',
      description: 'Fires `product.updated`. Stock changes go through `/inventory`.',
    }),
    ApiEnvelope(200, { product: ProductView }),
  );

/** DELETE /functions/v1/products/{product_id} */
export const ApiDeleteProduct = () =>
  applyDecorators(
    ApiParam({ name: 'product_id', format: 'uuid' }),
    ApiOperation({
      summary: 'Delete a product',
      description: 'Fires `product.deleted`. Past orders keep the item name and price.',
    }),
    ApiEnvelope(200, { message: { type: 'string', enum: ['Product deleted'], example: 'Product deleted' } }),
  );

/** POST /functions/v1/products/{product_id}/inventory */
export const ApiAdjustInventory = () =>
  applyDecorators(
    ApiParam({ name: 'product_id', format: 'uuid' }),
    ApiOperation({
      summary: 'Adjust stock by `delta` or set it to `quantity`',
      description:
        'Fires `inventory.updated`. Stock never goes below 0: a larger ' +
        'removal answers 409 `OUT_OF_STOCK` and changes nothing.',
    }),
    ApiEnvelope(200, { product: ProductView }),
    ApiErrorDetailsResponse(
      409,
      '`OUT_OF_STOCK`: not enough stock for the removal; ' +
        '`CONFLICT`: the stock would pass its maximum. Nothing changed.',
      {
        type: 'object',
        required: ['product_id', 'available', 'requested_delta'],
        properties: {
          product_id: { type: 'string', format: 'uuid' },
          available: { type: 'integer', description: 'Units in stock now' },
          requested_delta: {
            type: 'integer',
            description: 'The change asked for (a `quantity` counts as its difference to the stock)',
          },
        },
      },
      {
        code: 'OUT_OF_STOCK',
        message: 'Only 2 in stock: cannot remove 5',
        details: { product_id: '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d', available: 2, requested_delta: -5 },
      },
    ),
  );
