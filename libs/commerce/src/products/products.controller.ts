import { Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import { ApiFunctionRoute, CurrentStoreAccess, type StoreAccess, StoreScoped, Body, Query } from '@app/core';
import { AdjustInventoryCommand } from './commands/adjust-inventory/adjust-inventory.command.js';
import { CreateProductCommand } from './commands/create-product/create-product.command.js';
import { DeleteProductCommand } from './commands/delete-product/delete-product.command.js';
import { UpdateProductCommand } from './commands/update-product/update-product.command.js';
import {
  AdjustInventoryDto,
  CreateProductDto,
  ListProductsQuery as ListProductsParams,
  UpdateProductDto,
} from './product.dto.js';
import { seesActiveProductsOnly } from './product.js';
import { GetProductQuery } from './queries/get-product/get-product.query.js';
import { ListProductsQuery } from './queries/list-products/list-products.query.js';
import {
  ApiCreateProduct,
  ApiListProducts,
  ApiGetProduct,
  ApiUpdateProduct,
  ApiDeleteProduct,
  ApiAdjustInventory,
} from './products.openapi.js';
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
  @StoreScoped({ from: 'param', need: 'catalog' })
  @ApiCreateProduct()
  async create(@Param('store_id') storeId: string, @Body() body: CreateProductDto) {
    return { success: true, product: await this.commands.execute(new CreateProductCommand(storeId, body)) };
  }

  @Get('stores/:store_id/products')
  @StoreScoped({ from: 'param', need: 'read' })
  @ApiListProducts()
  async list(
    @Param('store_id') storeId: string,
    @Query() params: ListProductsParams,
    @CurrentStoreAccess() access: StoreAccess,
  ) {
    return {
      success: true,
      ...(await this.queries.execute(new ListProductsQuery(storeId, params, seesActiveProductsOnly(access)))),
    };
  }

  @Get('products/:product_id')
  @StoreScoped({ from: 'product', need: 'read' })
  @ApiGetProduct()
  async get(@Param('product_id') productId: string, @CurrentStoreAccess() access: StoreAccess) {
    return {
      success: true,
      product: await this.queries.execute(new GetProductQuery(productId, seesActiveProductsOnly(access))),
    };
  }

  @Patch('products/:product_id')
  @StoreScoped({ from: 'product', need: 'catalog' })
  @ApiUpdateProduct()
  async update(@Param('product_id') productId: string, @Body() body: UpdateProductDto) {
    return { success: true, product: await this.commands.execute(new UpdateProductCommand(productId, body)) };
  }

  @Delete('products/:product_id')
  @StoreScoped({ from: 'product', need: 'catalog' })
  @ApiDeleteProduct()
  async remove(@Param('product_id') productId: string) {
    await this.commands.execute(new DeleteProductCommand(productId));
    return { success: true, message: 'Product deleted' };
  }

  @Post('products/:product_id/inventory')
  @HttpCode(200)
  @StoreScoped({ from: 'product', need: 'catalog' })
  @ApiAdjustInventory()
  async adjust(@Param('product_id') productId: string, @Body() body: AdjustInventoryDto) {
    const change = { delta: body.delta, quantity: body.quantity };
    return {
      success: true,
      product: await this.commands.execute(new AdjustInventoryCommand(productId, change, body.reason ?? null)),
    };
  }
}
