import { ChangeOrderStatusHandler } from './change-order-status/change-order-status.handler.js';
import { PlaceOrderHandler } from './place-order/place-order.handler.js';

export const OrderCommandHandlers = [PlaceOrderHandler, ChangeOrderStatusHandler];
