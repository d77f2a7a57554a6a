import { ApiProperty } from '@nestjs/swagger';
import type { OrderEventData } from '../events/commerce-events.js';
import { ORDER_STATUSES, type OrderStatus } from './order-status.js';
import { isoTimestamp } from '@app/core';

export interface OrderRow {
  id: string;
  store_id: string;
  order_number: string;
  customer_id: string | null;
  status: OrderStatus;
  currency: string;
  total: string;
  placed_by: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface OrderItemRow {
  order_id: string;
  product_id: string | null;
  position: number;
  name: string;
  quantity: number;
  price: string;
}

/** An order with its customer (name and e-mail as they are now) and its items, in the order placed. */
export interface OrderDetailsRow extends OrderRow {
  customer_name: string | null;
  customer_email: string | null;
  items: OrderItemRow[];
}

const ISO_EXAMPLE = '2026-11-22T10:00:00.000Z';

/** One line of an order, as the catalog had it when the order was placed (`OrderItemView`). */
export class OrderItemView {
  @ApiProperty({
    type: 'string',
    format: 'uuid',
    nullable: true,
    description: '`null` once the product is deleted; the name and price stay',
    example: '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d',
  })
  product_id!: string | null;
  @ApiProperty({ example: 'Linen tote bag' })
  name!: string;
  @ApiProperty({ type: 'integer', example: 3 })
  quantity!: number;
  @ApiProperty({ description: 'Unit price at the time of the order', example: 24.9 })
  price!: number;
}

/** The customer of an order, with its name and e-mail as they are now (`OrderCustomerView`). */
export class OrderCustomerView {
  @ApiProperty({ format: 'uuid', example: '3c2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a98' })
  id!: string;
  @ApiProperty({ example: 'Grace Hopper' })
  name!: string;
  @ApiProperty({ format: 'email', example: 'grace@example.com' })
  email!: string;
}

/** An order as the API returns it; the class documents it in the OpenAPI document (`OrderView`). */
export class OrderView {
  @ApiProperty({ format: 'uuid', example: '5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a' })
  id!: string;
  @ApiProperty({ format: 'uuid', example: '6f1c0b1e-2d4a-4c1b-9f57-1f0e8f6b8a11' })
  store_id!: string;
  @ApiProperty({ description: 'The store\'s order number: "1001", "1002"… without gaps', example: '1001' })
  order_number!: string;
  @ApiProperty({ enum: ORDER_STATUSES, example: 'pending' })
  status!: OrderStatus;
  @ApiProperty({ description: 'ISO 4217: the store currency when the order was placed', example: 'USD' })
  currency!: string;
  @ApiProperty({ description: 'The sum of the items, at most 2 decimals', example: 74.7 })
  total!: number;
  @ApiProperty({
    type: () => OrderCustomerView,
    nullable: true,
    description: '`null` for an order without a customer, or once its record is gone',
  })
  customer!: OrderCustomerView | null;
  @ApiProperty({ type: () => [OrderItemView], description: 'In the order placed' })
  items!: OrderItemView[];
  @ApiProperty({ format: 'date-time', example: ISO_EXAMPLE })
  created_at!: string;
  @ApiProperty({ format: 'date-time', example: ISO_EXAMPLE })
  updated_at!: string;
}

function itemView(item: OrderItemRow): OrderItemView {
  return { product_id: item.product_id, name: item.name, quantity: item.quantity, price: Number(item.price) };
}

export function toOrderView(row: OrderDetailsRow): OrderView {
  return {
    id: row.id,
    store_id: row.store_id,
    order_number: row.order_number,
    status: row.status,
    currency: row.currency,
    total: Number(row.total),
    customer:
      row.customer_id && row.customer_name !== null
        ? { id: row.customer_id, name: row.customer_name, email: row.customer_email! }
        : null,
    items: row.items.map(itemView),
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}

/**
 * A just-placed order's details from what placing it wrote in the same transaction, as the inserts
 * returned it: the order row (its number and timestamps as the database set them; taking the stock
 * changes no field of the view), its items as stored, and its customer as it was read. What
 * `OrderRepository.findDetails` would read back, without reading it.
 */
export function placedOrderDetails(
  order: OrderRow,
  customer: { name: string; email: string } | null,
  items: OrderItemRow[],
): OrderDetailsRow {
  return { ...order, customer_name: customer?.name ?? null, customer_email: customer?.email ?? null, items };
}

export function orderEventData(row: OrderDetailsRow): OrderEventData {
  return {
    order_id: row.id,
    order_number: row.order_number,
    total: Number(row.total),
    currency: row.currency,
    status: row.status,
    customer:
      row.customer_id && row.customer_name !== null ? { name: row.customer_name, email: row.customer_email! } : null,
    items: row.items.map(itemView),
  };
}

/**
 * Money in exact integer cents. NUMERIC(12,2) arrives from PostgreSQL as a string such as "12.50";
 * sums are done in cents (BigInt: 100 items × 10,000 units × the largest price exceed 2^53).
 */
export function toCents(numeric: string): bigint {
  const match = /^(\d+)(?:\.(\d{1,2}))?$/.exec(numeric.trim());
  if (!match) throw new Error(`not a money amount: ${numeric}`);
  return BigInt(match[1]) * 100n + BigInt((match[2] ?? '').padEnd(2, '0'));
}

/** Cents as a NUMERIC literal, e.g. 2510n → "25.10". */
export function fromCents(cents: bigint): string {
  const whole = cents / 100n;
  const rest = cents % 100n;
  return `${whole}.${rest.toString().padStart(2, '0')}`;
}

/** The largest order total the `orders.total` column (NUMERIC(14,2)) holds. */
export const MAX_ORDER_TOTAL_CENTS = 99_999_999_999_999n;
