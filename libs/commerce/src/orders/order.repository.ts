import { Injectable } from '@nestjs/common';
import { type Cursor, queryRows, TenantDb } from '@app/core';
import type { OrderStatus } from './order-status.js';
import type { OrderDetailsRow, OrderItemRow, OrderRow } from './order.js';

/** The customer an order is for, as orders need it. */
export interface OrderCustomer {
  id: string;
  name: string;
  email: string;
}

export interface NewOrderItem {
  product_id: string;
  name: string;
  quantity: number;
  /** Unit price as a NUMERIC literal, e.g. "12.50". */
  price: string;
}

const ORDER_WITH_CUSTOMER = `
  SELECT o.*, c.name AS customer_name, c.email AS customer_email
    FROM orders o
    LEFT JOIN customers c ON c.id = o.customer_id`;

/** One product's stock move for an order. */
export interface StockMoveOfOrder {
  product_id: string;
  previous_quantity: number;
  quantity: number;
  delta: number;
}

/** Orders and their items, read and written in the request's transaction under row-level security. */
@Injectable()
export class OrderRepository {
  constructor(private readonly db: TenantDb) {}

  /** A customer record of the store; null when it does not exist there (or is not visible). */
  async findCustomer(storeId: string, customerId: string): Promise<OrderCustomer | null> {
    const rows = await queryRows<OrderCustomer>(
      this.db.tx,
      'SELECT id, name, email FROM customers WHERE id = $1 AND store_id = $2',
      [customerId, storeId],
    );
    return rows[0] ?? null;
  }

  /** The customer record of a signed-in customer in the store; null when it has none. */
  async findCustomerOfUser(storeId: string, userId: string): Promise<OrderCustomer | null> {
    const rows = await queryRows<OrderCustomer>(
      this.db.tx,
      'SELECT id, name, email FROM customers WHERE user_id = $1 AND store_id = $2',
      [userId, storeId],
    );
    return rows[0] ?? null;
  }

  /**
   * Inserts an order in the store's currency, status `pending`. Its number is the store's next one
   * ("1001", "1002", …), given by the database at insert (trigger `orders_number`, whose counter row
   * stays locked until the transaction ends): nobody chooses it, concurrent orders take numbers one
   * after the other, and an order that fails rolls its number back with it.
   */
  async insert(
    storeId: string,
    fields: { customerId: string | null; total: string; placedBy: string | null },
  ): Promise<OrderRow> {
    const rows = await queryRows<OrderRow>(
      this.db.tx,
      `INSERT INTO orders (store_id, customer_id, currency, total, placed_by)
       SELECT s.id, $2, s.currency, $3, $4 FROM stores s WHERE s.id = $1
       RETURNING *`,
      [storeId, fields.customerId, fields.total, fields.placedBy],
    );
    return rows[0];
  }

  /**
   * Inserts the items of an order, numbered in the given order; returns them as stored (the database
   * prices and names each from its product as it inserts it: `order_items_price`), by position.
   */
  async insertItems(order: OrderRow, items: NewOrderItem[]): Promise<OrderItemRow[]> {
    const rows = await queryRows<OrderItemRow>(
      this.db.tx,
      `INSERT INTO order_items (order_id, store_id, product_id, position, name, quantity, price)
       SELECT $1, $2, i.product_id, i.position, i.name, i.quantity, i.price
         FROM unnest($3::uuid[], $4::text[], $5::integer[], $6::numeric[]) WITH ORDINALITY
              AS i(product_id, name, quantity, price, position)
       RETURNING order_id, product_id, position, name, quantity, price`,
      [
        order.id,
        order.store_id,
        items.map((item) => item.product_id),
        items.map((item) => item.name),
        items.map((item) => item.quantity),
        items.map((item) => item.price),
      ],
    );
    return rows.sort((a, b) => a.position - b.position);
  }

  /** The order with its customer and items; null when not visible. */
  async findDetails(id: string): Promise<OrderDetailsRow | null> {
    const rows = await queryRows<OrderRow & { customer_name: string | null; customer_email: string | null }>(
      this.db.tx,
      `${ORDER_WITH_CUSTOMER} WHERE o.id = $1`,
      [id],
    );
    return (await this.withItems(rows))[0] ?? null;
  }

  /**
   * The order, locked until the transaction ends (concurrent status changes wait). Row-level security lets a customer
   * lock only an order it may still cancel (its own pending one): for its other orders this returns null, and `find`
   * tells them apart.
   */
  async findForUpdate(id: string): Promise<OrderRow | null> {
    return (await queryRows<OrderRow>(this.db.tx, 'SELECT * FROM orders WHERE id = $1 FOR UPDATE', [id]))[0] ?? null;
  }

  /**
   * Takes the stock of an order inserted in this transaction (app_take_order_stock): one move per
   * product in ascending id order; the last has `taken` false when that product fell short.
   */
  takeStock(orderId: string): Promise<(StockMoveOfOrder & { taken: boolean })[]> {
    return queryRows(this.db.tx, 'SELECT * FROM app_take_order_stock($1)', [orderId]);
  }

  /** Puts back the stock of an order cancelled in this transaction (app_return_order_stock). */
  returnStock(orderId: string): Promise<StockMoveOfOrder[]> {
    return queryRows(this.db.tx, 'SELECT * FROM app_return_order_stock($1)', [orderId]);
  }

  async find(id: string): Promise<OrderRow | null> {
    return (await queryRows<OrderRow>(this.db.tx, 'SELECT * FROM orders WHERE id = $1', [id]))[0] ?? null;
  }

  async updateStatus(id: string, status: OrderStatus): Promise<void> {
    await queryRows(this.db.tx, 'UPDATE orders SET status = $2, updated_at = now() WHERE id = $1', [id, status]);
  }

  /** The items of an order, in the order placed. */
  async itemsOf(orderId: string): Promise<OrderItemRow[]> {
    return queryRows<OrderItemRow>(
      this.db.tx,
      'SELECT order_id, product_id, position, name, quantity, ' +
        'price FROM order_items WHERE order_id = $1 ORDER BY position',
      [orderId],
    );
  }

  /**
   * A page of the store's orders, newest first; `limit + 1` rows so the caller can tell whether another page follows.
   */
  async pageOfStore(
    storeId: string,
    status: OrderStatus | undefined,
    limit: number,
    after: Cursor | null,
  ): Promise<OrderDetailsRow[]> {
    return this.page('o.store_id = $1', storeId, status, limit, after);
  }

  /** A page of the orders of the user's customer records, newest first (`limit + 1` rows). */
  async pageOfCustomerUser(
    userId: string,
    status: OrderStatus | undefined,
    limit: number,
    after: Cursor | null,
  ): Promise<OrderDetailsRow[]> {
    return this.page('o.customer_id IN (SELECT id FROM customers WHERE user_id = $1)', userId, status, limit, after);
  }

  private async page(
    scope: string,
    scopeId: string,
    status: OrderStatus | undefined,
    limit: number,
    after: Cursor | null,
  ): Promise<OrderDetailsRow[]> {
    const rows = await queryRows<OrderRow & { customer_name: string | null; customer_email: string | null }>(
      this.db.tx,
      `${ORDER_WITH_CUSTOMER}
        WHERE ${scope}
          AND ($2::text IS NULL OR o.status = $2)
          AND ($3::timestamptz IS NULL OR (o.created_at, o.id) < ($3::timestamptz, $4::uuid))
        ORDER BY o.created_at DESC, o.id DESC
        LIMIT $5`,
      [scopeId, status ?? null, after?.createdAt ?? null, after?.id ?? null, limit + 1],
    );
    return this.withItems(rows);
  }

  /** Attaches the items of the orders, fetched in one query. */
  private async withItems(
    rows: (OrderRow & { customer_name: string | null; customer_email: string | null })[],
  ): Promise<OrderDetailsRow[]> {
    if (rows.length === 0) return [];
    const items = await queryRows<OrderItemRow>(
      this.db.tx,
      `SELECT order_id, product_id, position, name, quantity, price FROM order_items
        WHERE order_id = ANY ($1::uuid[]) ORDER BY order_id, position`,
      [rows.map((row) => row.id)],
    );
    const byOrder = new Map<string, OrderItemRow[]>();
    for (const item of items) byOrder.set(item.order_id, [...(byOrder.get(item.order_id) ?? []), item]);
    return rows.map((row) => ({ ...row, items: byOrder.get(row.id) ?? [] }));
  }
}
