import type { DataSchema, StoreEventDefinitions } from '@app/core';
import { ORDER_STATUSES, type OrderStatus } from '../orders/order-status.js';
import { PRODUCT_STATUSES, type ProductStatus } from '../products/product.js';

/**
 * The store events commerce raises: each one's `data` type, JSON Schema, example and when it fires.
 * `COMMERCE_EVENTS` is commerce's part of the one event catalog (the webhooks lib gathers every
 * context's part); the `declare module` at the end adds the names and types to `StoreEventPayloads`,
 * which is what makes `OutboxService.append` refuse a wrong name or payload at compile time.
 */

/**
 * `data` of product.created / product.updated / product.deleted: the product after the change (before, for a deletion).
 */
export interface ProductEventData {
  product_id: string;
  name: string;
  price: number;
  compare_price: number | null;
  category: string | null;
  status: ProductStatus;
  inventory_quantity: number;
}

/** `data` of inventory.updated. */
export interface InventoryEventData {
  product_id: string;
  previous_quantity: number;
  quantity: number;
  delta: number;
  reason: string | null;
}

/** `data` of customer.created / customer.updated. */
export interface CustomerEventData {
  customer_id: string;
  name: string;
  email: string;
}

/** `data` of every order.* event: the order after the change. */
export interface OrderEventData {
  order_id: string;
  order_number: string;
  total: number;
  currency: string;
  status: OrderStatus;
  customer: { name: string; email: string } | null;
  items: { product_id: string | null; name: string; quantity: number; price: number }[];
}

/** Every event commerce raises → its `data`. */
export interface CommerceEventPayloads {
  'order.created': OrderEventData;
  'order.updated': OrderEventData;
  'order.paid': OrderEventData;
  'order.shipped': OrderEventData;
  'order.delivered': OrderEventData;
  'order.cancelled': OrderEventData;
  'order.refunded': OrderEventData;
  'product.created': ProductEventData;
  'product.updated': ProductEventData;
  'product.deleted': ProductEventData;
  'inventory.updated': InventoryEventData;
  'customer.created': CustomerEventData;
  'customer.updated': CustomerEventData;
}

// ── Schemas ──────────────────────────────────────────────────────────────────────────────────────

const MONEY = {
  type: 'number',
  minimum: 0,
  description: 'An amount in the store currency, at most 2 decimals',
} as const;

const PRODUCT_SCHEMA: DataSchema<ProductEventData> = {
  type: 'object',
  additionalProperties: false,
  required: ['product_id', 'name', 'price', 'compare_price', 'category', 'status', 'inventory_quantity'],
  properties: {
    product_id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    price: MONEY,
    compare_price: { ...MONEY, nullable: true },
    category: { type: 'string', nullable: true },
    status: { type: 'string', enum: PRODUCT_STATUSES },
    inventory_quantity: { type: 'integer', minimum: 0 },
  },
};

const INVENTORY_SCHEMA: DataSchema<InventoryEventData> = {
  type: 'object',
  additionalProperties: false,
  required: ['product_id', 'previous_quantity', 'quantity', 'delta', 'reason'],
  properties: {
    product_id: { type: 'string', format: 'uuid' },
    previous_quantity: { type: 'integer', minimum: 0 },
    quantity: { type: 'integer', minimum: 0 },
    delta: { type: 'integer', description: 'quantity − previous_quantity' },
    reason: {
      type: 'string',
      nullable: true,
      description: 'The adjustment’s reason, or the order that moved the stock',
    },
  },
};

const CUSTOMER_SCHEMA: DataSchema<CustomerEventData> = {
  type: 'object',
  additionalProperties: false,
  required: ['customer_id', 'name', 'email'],
  properties: {
    customer_id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    email: { type: 'string', format: 'email' },
  },
};

const ORDER_SCHEMA: DataSchema<OrderEventData> = {
  type: 'object',
  additionalProperties: false,
  required: ['order_id', 'order_number', 'total', 'currency', 'status', 'customer', 'items'],
  properties: {
    order_id: { type: 'string', format: 'uuid' },
    order_number: { type: 'string', pattern: '^[0-9]+$', description: 'Per store, from "1001", without gaps' },
    total: MONEY,
    currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217' },
    status: { type: 'string', enum: ORDER_STATUSES },
    customer: {
      type: 'object',
      nullable: true,
      additionalProperties: false,
      required: ['name', 'email'],
      properties: { name: { type: 'string' }, email: { type: 'string', format: 'email' } },
    },
    items: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['product_id', 'name', 'quantity', 'price'],
        properties: {
          product_id: {
            type: 'string',
            format: 'uuid',
            nullable: true,
            description: 'null once the product is deleted',
          },
          name: { type: 'string', description: 'The product’s name when the order was placed' },
          quantity: { type: 'integer', minimum: 1 },
          price: { ...MONEY, description: 'The unit price when the order was placed' },
        },
      },
    },
  },
};

// ── Examples ─────────────────────────────────────────────────────────────────────────────────────

const PRODUCT_DATA: ProductEventData = {
  product_id: '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d',
  name: 'Linen tote bag',
  price: 24.9,
  compare_price: 29.9,
  category: 'Bags',
  status: 'active',
  inventory_quantity: 42,
};

const ORDER_DATA: OrderEventData = {
  order_id: '5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a',
  order_number: '1001',
  total: 49.8,
  currency: 'USD',
  status: 'pending',
  customer: { name: 'Grace Hopper', email: 'grace@example.com' },
  items: [{ product_id: PRODUCT_DATA.product_id, name: PRODUCT_DATA.name, quantity: 2, price: 24.9 }],
};

const CUSTOMER_DATA: CustomerEventData = {
  customer_id: '3c2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a98',
  name: 'Grace Hopper',
  email: 'grace@example.com',
};

const order = (description: string, status: OrderStatus) => ({
  description,
  schema: ORDER_SCHEMA,
  example: { ...ORDER_DATA, status },
});
const product = (description: string, example: ProductEventData = PRODUCT_DATA) => ({
  description,
  schema: PRODUCT_SCHEMA,
  example,
});
const customer = (description: string, example: CustomerEventData = CUSTOMER_DATA) => ({
  description,
  schema: CUSTOMER_SCHEMA,
  example,
});

/** Commerce's part of the event catalog. */
export const COMMERCE_EVENTS: StoreEventDefinitions<CommerceEventPayloads> = {
  'order.created': order(
    'An order was placed (by staff or a customer). Followed by one inventory.updated per item.',
    'pending',
  ),
  'order.updated': order('An order changed status; fired with the specific event of the move (order.paid, …).', 'paid'),
  'order.paid': order('An order moved to paid.', 'paid'),
  'order.shipped': order('An order moved to shipped.', 'shipped'),
  'order.delivered': order('An order moved to delivered.', 'delivered'),
  'order.cancelled': order(
    'An order was cancelled; its items went back in stock (one inventory.updated per product still in the catalog).',
    'cancelled',
  ),
  'order.refunded': order('An order was refunded; stock is not given back.', 'refunded'),
  'product.created': product('A product was created.'),
  'product.updated': product('A product’s fields changed (not its stock: that is inventory.updated).', {
    ...PRODUCT_DATA,
    price: 22.5,
  }),
  'product.deleted': product('A product was deleted; data is the product as it was.', {
    ...PRODUCT_DATA,
    status: 'archived',
  }),
  'inventory.updated': {
    description: 'A product’s stock changed: an adjustment, an order placed, or an order cancelled.',
    schema: INVENTORY_SCHEMA,
    example: {
      product_id: PRODUCT_DATA.product_id,
      previous_quantity: 42,
      quantity: 40,
      delta: -2,
      reason: 'order 1001',
    },
  },
  'customer.created': customer('Staff created a customer, or a customer signed up to the store.'),
  'customer.updated': customer('A customer’s name or e-mail changed.', {
    ...CUSTOMER_DATA,
    email: 'grace.hopper@example.com',
  }),
};

declare module '@app/core' {
  // Adds commerce's events to every store event's name → data (declaration merging).
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface StoreEventPayloads extends CommerceEventPayloads {}
}
