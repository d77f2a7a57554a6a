import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import {
  ApiEnvelope,
  ApiErrorDetailsResponse,
  ApiFunctionRoute,
  ApiPage,
  CurrentStoreAccess,
  type StoreAccess,
  StoreScoped,
} from '@app/core';
import { AdjustInventoryCommand } from './commands/adjust-inventory/adjust-inventory.command.js';
import { CreateProductCommand } from './commands/create-product/create-product.command.js';
import { DeleteProductCommand } from './commands/delete-product/delete-product.command.js';
import { UpdateProductCommand } from './commands/update-product/update-product.command.js';
import { AdjustInventoryDto, CreateProductDto, ListProductsQuery as ListProductsParams, UpdateProductDto } from './product.dto.js';
import { ProductView, seesActiveProductsOnly } from './product.js';
import { GetProductQuery } from './queries/get-product/get-product.query.js';
import { ListProductsQuery } from './queries/list-products/list-products.query.js';
import '../store-resources.js'; // registers the store resource its routes name (product) before they are declared

/**
 * The catalog: team members need the `catalog` permission to change it, and to see drafts and
 * archived products; customers and the other members read active products.
 */
@ApiTags('catalog')
@ApiFunctionRoute()
@Controller('functions/v1')
export class ProductsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Post('stores/:store_id/products')
  @HttpCode(201)
  @ApiParam({ name: 'store_id', format: 'uuid' })
  @StoreScoped({ from: 'param', need: 'catalog' })
  @ApiOperation({
    summary: 'Create a product',
    description:
      'Owner, admin or a team member with `catalog`. A new product is a `draft` unless `status` says otherwise. Fires `product.created`.',
  })
  @ApiEnvelope(201, { product: ProductView })
  async create(@Param('store_id') storeId: string, @Body() body: CreateProductDto) {
    return { success: true, product: await this.commands.execute(new CreateProductCommand(storeId, body)) };
  }

  @Get('stores/:store_id/products')
  @ApiParam({ name: 'store_id', format: 'uuid' })
  @StoreScoped({ from: 'param', need: 'read' })
  @ApiOperation({
    summary: "A store's products, newest first",
    description:
      'Filters: `status`, `category`, `q` (name or description). Customers and members without `catalog` see active products only.',
  })
  @ApiPage(ProductView)
  async list(@Param('store_id') storeId: string, @Query() params: ListProductsParams, @CurrentStoreAccess() access: StoreAccess) {
    return { success: true, ...(await this.queries.execute(new ListProductsQuery(storeId, params, seesActiveProductsOnly(access)))) };
  }

  @Get('products/:product_id')
  @ApiParam({ name: 'product_id', format: 'uuid' })
  @StoreScoped({ from: 'product', need: 'read' })
  @ApiOperation({ summary: 'One product', description: 'A draft or archived product is 404 for customers and members without `catalog`.' })
  @ApiEnvelope(200, { product: ProductView })
  async get(@Param('product_id') productId: string, @CurrentStoreAccess() access: StoreAccess) {
    return { success: true, product: await this.queries.execute(new GetProductQuery(productId, seesActiveProductsOnly(access))) };
  }

  @Patch('products/:product_id')
  @ApiParam({ name: 'product_id', format: 'uuid' })
  @StoreScoped({ from: 'product', need: 'catalog' })
  @ApiOperation({ summary: 'Change a product', description: 'Fires `product.updated`. Stock changes go through `/inventory`.' })
  @ApiEnvelope(200, { product: ProductView })
  async update(@Param('product_id') productId: string, @Body() body: UpdateProductDto) {
    return { success: true, product: await this.commands.execute(new UpdateProductCommand(productId, body)) };
  }

  @Delete('products/:product_id')
  @ApiParam({ name: 'product_id', format: 'uuid' })
  @StoreScoped({ from: 'product', need: 'catalog' })
  @ApiOperation({ summary: 'Delete a product', description: 'Fires `product.deleted`. Past orders keep the item name and price.' })
  @ApiEnvelope(200, { message: { type: 'string', enum: ['Product deleted'], example: 'Product deleted' } })
  async remove(@Param('product_id') productId: string) {
    await this.commands.execute(new DeleteProductCommand(productId));
    return { success: true, message: 'Product deleted' };
  }

  @Post('products/:product_id/inventory')
  @HttpCode(200)
  @ApiParam({ name: 'product_id', format: 'uuid' })
  @StoreScoped({ from: 'product', need: 'catalog' })
  @ApiOperation({
    summary: 'Adjust stock by `delta` or set it to `quantity`',
    description: 'Fires `inventory.updated`. Stock never goes below 0: a larger removal answers 409 `OUT_OF_STOCK` and changes nothing.',
  })
  @ApiEnvelope(200, { product: ProductView })
  @ApiErrorDetailsResponse(
    409,
    '`OUT_OF_STOCK`: not enough stock for the removal; `CONFLICT`: the stock would pass its maximum. Nothing changed.',
    {
      type: 'object',
      required: ['product_id', 'available', 'requested_delta'],
      properties: {
        product_id: { type: 'string', format: 'uuid' },
        available: { type: 'integer', description: 'Units in stock now' },
        requested_delta: { type: 'integer', description: 'The change asked for (a `quantity` counts as its difference to the stock)' },
      },
    },
    {
      code: 'OUT_OF_STOCK',
      message: 'Only 2 in stock: cannot remove 5',
      details: { product_id: '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d', available: 2, requested_delta: -5 },
    },
  )
  async adjust(@Param('product_id') productId: string, @Body() body: AdjustInventoryDto) {
    const change = { delta: body.delta, quantity: body.quantity };
    return { success: true, product: await this.commands.execute(new AdjustInventoryCommand(productId, change, body.reason ?? null)) };
  }
}
