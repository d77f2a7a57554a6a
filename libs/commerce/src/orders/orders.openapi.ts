import { applyDecorators } from '@nestjs/common';
import { ApiOperation, ApiParam } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrorDetailsResponse, ApiErrorResponse, ApiPage } from '@app/core';
import { ORDER_STATUSES } from './order-status.js';
import { OrderView } from './order.js';

const PRODUCT_ID_EXAMPLE = '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d';
const STATUS_MACHINE =
  'Status machine: pending → paid | cancelled; paid → shipped | cancelled | refunded; shipped → delivered | ' +
  'refunded; delivered → refunded; cancelled and refunded are final. Any other move, the same status included, ' +
  'answers 409 `INVALID_TRANSITION` with `details: {from, to, allowed}`.';

/** POST /functions/v1/stores/{store_id}/orders */
export const ApiPlaceOrder = () =>
  applyDecorators(
    ApiParam({ name: 'store_id', format: 'uuid' }),
    ApiOperation({
      summary: 'Place an order',
      description:
        'Staff need the `orders` permission and may name a `customer_id` of the store (404 otherwise) or none. A ' +
        'customer orders for itself: `customer_id` omitted or its own (403 otherwise). Items: 1 to 100, each ' +
        'product once, quantity 1 to 10,000. Names, prices and the total come from the catalog at the time of the ' +
        'order; a client-sent price is refused (400, unknown field). Only `active` products of the store can be ' +
        'ordered: any other product id (draft, archived, deleted, unknown or of another store) answers 422 ' +
        '`UNPROCESSABLE` naming each item. Stock is reserved for every item or none: when one is short, 409 ' +
        '`OUT_OF_STOCK` lists `{product_id, requested, available}` and nothing changes. `order_number` is the ' +
        'store\'s next number ("1001", "1002", …), without gaps: a refused order takes none. Fires ' +
        '`order.created` and one `inventory.updated` per item (reason "order <number>").',
    }),
    ApiEnvelope(201, { order: OrderView }),
    ApiErrorResponse(
      403,
      'A member without `orders`, a customer ordering for another customer, or a customer with no record in this store',
      {
        code: 'FORBIDDEN',
        message: 'Customers place orders for themselves only',
      },
    ),
    ApiErrorDetailsResponse(
      409,
      '`OUT_OF_STOCK`: an item is short of stock; `details` lists ' +
        'it and every later item short too. Nothing was reserved.',
      {
        type: 'array',
        items: {
          type: 'object',
          required: ['product_id', 'requested', 'available'],
          properties: {
            product_id: { type: 'string', format: 'uuid' },
            requested: { type: 'integer' },
            available: { type: 'integer', description: 'Units in stock now' },
          },
        },
      },
      {
        code: 'OUT_OF_STOCK',
        message: 'Only 2 of "Linen tote bag" in stock: cannot order 3',
        details: [{ product_id: PRODUCT_ID_EXAMPLE, requested: 3, available: 2 }],
      },
    ),
    ApiErrorDetailsResponse(
      422,
      '`UNPROCESSABLE`: an item is not an active product of this store (`details` names ' +
        'each such item), or the total is over the most an order holds (no `details`)',
      {
        type: 'array',
        items: {
          type: 'object',
          required: ['field', 'product_id', 'message'],
          properties: {
            field: { type: 'string', description: 'The item, as `items.<index>.product_id`' },
            product_id: { type: 'string', format: 'uuid' },
            message: { type: 'string' },
          },
        },
      },
      {
        code: 'UNPROCESSABLE',
        message: `Product ${PRODUCT_ID_EXAMPLE} cannot be ordered`,
        details: [
          {
            field: 'items.0.product_id',
            product_id: PRODUCT_ID_EXAMPLE,
            message: 'is not an active product of this store',
          },
        ],
      },
    ),
  );

/** GET /functions/v1/stores/{store_id}/orders */
export const ApiListStoreOrders = () =>
  applyDecorators(
    ApiParam({ name: 'store_id', format: 'uuid' }),
    ApiOperation({
      summary: "A store's orders, newest first",
      description:
        'Staff with the `orders` permission. Filter: `status`. ' +
        'Customers list their own orders with GET /functions/v1/orders.',
    }),
    ApiPage(OrderView),
  );

/** GET /functions/v1/orders */
export const ApiListMyOrders = () =>
  applyDecorators(
    ApiOperation({
      summary: "The calling customer's own orders, newest first",
      description:
        "Customers only (403 for other roles, which list a store's orders " +
        'with GET /functions/v1/stores/{store_id}/orders). Filter: `status`.',
    }),
    ApiPage(OrderView),
    ApiErrorResponse(403, 'The caller is not a customer', {
      code: 'FORBIDDEN',
      message:
        "This lists a customer's own orders; staff list a store's " +
        'orders with GET /functions/v1/stores/{store_id}/orders',
    }),
  );

/** GET /functions/v1/orders/{order_id} */
export const ApiGetOrder = () =>
  applyDecorators(
    ApiParam({ name: 'order_id', format: 'uuid' }),
    ApiOperation({
      summary: 'One order',
      description: "Staff with the `orders` permission, or the order's customer (others' orders answer 404).",
    }),
    ApiEnvelope(200, { order: OrderView }),
  );

/** PATCH /functions/v1/orders/{order_id} */
export const ApiChangeOrderStatus = () =>
  applyDecorators(
    ApiParam({ name: 'order_id', format: 'uuid' }),
    ApiOperation({
      summary: "Change an order's status",
      description:
        `${STATUS_MACHINE} Staff with the \`orders\` permission make ` +
        `any move; the order's customer may only cancel it while it is ` +
        '`pending` (403 otherwise). Every move fires `order.updated` ' +
        'and the specific event (`order.paid`, `order.shipped`, ' +
        '`order.delivered`, `order.cancelled`, `order.refunded`), both ' +
        'with the order after the change. Cancelling puts the items ' +
        'back in stock (one `inventory.updated` per product still in ' +
        'the catalog, reason "order <number> cancelled"); a refund does ' +
        'not restock (adjust stock with POST /functions/v1/products/{product_id}/inventory if goods come back).',
    }),
    ApiEnvelope(200, { order: OrderView }),
    ApiErrorResponse(403, 'A customer asking for anything but cancelling its own pending order', {
      code: 'FORBIDDEN',
      message: 'Customers may only cancel their orders',
    }),
    ApiErrorDetailsResponse(
      409,
      '`INVALID_TRANSITION`: the status machine does not allow this move',
      {
        type: 'object',
        required: ['from', 'to', 'allowed'],
        properties: {
          from: { type: 'string', enum: [...ORDER_STATUSES] },
          to: { type: 'string', enum: [...ORDER_STATUSES] },
          allowed: {
            type: 'array',
            items: { type: 'string', enum: [...ORDER_STATUSES] },
            description: 'The moves allowed from `from`',
          },
        },
      },
      {
        code: 'INVALID_TRANSITION',
        message: 'An order cannot move from pending to shipped (allowed: paid, cancelled)',
        details: { from: 'pending', to: 'shipped', allowed: ['paid', 'cancelled'] },
      },
    ),
  );
