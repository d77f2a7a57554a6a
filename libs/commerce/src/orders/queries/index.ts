import { GetOrderHandler } from './get-order/get-order.handler.js';
import { ListMyOrdersHandler } from './list-my-orders/list-my-orders.handler.js';
import { ListStoreOrdersHandler } from './list-store-orders/list-store-orders.handler.js';

export const OrderQueryHandlers = [GetOrderHandler, ListStoreOrdersHandler, ListMyOrdersHandler];
