import { Controller, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import {
  ApiFunctionRoute,
  CurrentPrincipal,
  CurrentStoreAccess,
  CurrentUser,
  type RequestPrincipal,
  type StoreAccess,
  StoreScoped,
  type UserPrincipal,
  Body,
  Query,
} from '@app/core';
import { Roles } from '@app/auth';
import { ChangeOrderStatusCommand } from './commands/change-order-status/change-order-status.command.js';
import { PlaceOrderCommand } from './commands/place-order/place-order.command.js';
import { ListOrdersQuery as ListOrdersParams, PlaceOrderDto, UpdateOrderDto } from './order.dto.js';
import { GetOrderQuery } from './queries/get-order/get-order.query.js';
import { ListMyOrdersQuery } from './queries/list-my-orders/list-my-orders.query.js';
import { ListStoreOrdersQuery } from './queries/list-store-orders/list-store-orders.query.js';
import {
  ApiPlaceOrder,
  ApiListStoreOrders,
  ApiListMyOrders,
  ApiGetOrder,
  ApiChangeOrderStatus,
} from './orders.openapi.js';
import '../store-resources.js'; // registers the store resource its routes name (order) before they are declared

/**
 * Orders: placed by staff with the `orders` permission or by a customer for itself; read and moved
 * along the status machine by staff; a customer reads its own orders and cancels its own pending ones.
 */
@ApiTags('orders')
@ApiFunctionRoute()
@Controller('functions/v1')
export class OrdersController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Post('stores/:store_id/orders')
  @HttpCode(201)
  @StoreScoped({ from: 'param', need: 'read' })
  @ApiPlaceOrder()
  async place(
    @Param('store_id') storeId: string,
    @Body() body: PlaceOrderDto,
    @CurrentPrincipal() caller: RequestPrincipal,
    @CurrentStoreAccess() access: StoreAccess,
  ) {
    // A store key places orders as staff does; the order names no user as its placer then.
    const userId = caller.kind === 'user' ? caller.userId : null;
    const command = new PlaceOrderCommand(storeId, access, userId, body.customer_id, body.items);
    return { success: true, order: await this.commands.execute(command) };
  }

  @Get('stores/:store_id/orders')
  @StoreScoped({ from: 'param', need: 'orders' })
  @ApiListStoreOrders()
  async listOfStore(@Param('store_id') storeId: string, @Query() params: ListOrdersParams) {
    return { success: true, ...(await this.queries.execute(new ListStoreOrdersQuery(storeId, params))) };
  }

  @Get('orders')
  @Roles('customer', {
    message:
      "This lists a customer's own orders; staff list a store's orders with GET /functions/v1/stores/{store_id}/orders",
  })
  @ApiListMyOrders()
  async listMine(@CurrentUser() user: UserPrincipal, @Query() params: ListOrdersParams) {
    return { success: true, ...(await this.queries.execute(new ListMyOrdersQuery(user, params))) };
  }

  @Get('orders/:order_id')
  @StoreScoped({ from: 'order', need: 'orders', self: true })
  @ApiGetOrder()
  async get(@Param('order_id') orderId: string) {
    return { success: true, order: await this.queries.execute(new GetOrderQuery(orderId)) };
  }

  @Patch('orders/:order_id')
  @StoreScoped({ from: 'order', need: 'orders', self: true })
  @ApiChangeOrderStatus()
  async changeStatus(
    @Param('order_id') orderId: string,
    @Body() body: UpdateOrderDto,
    @CurrentStoreAccess() access: StoreAccess,
  ) {
    return {
      success: true,
      order: await this.commands.execute(new ChangeOrderStatusCommand(orderId, access, body.status)),
    };
  }
}
