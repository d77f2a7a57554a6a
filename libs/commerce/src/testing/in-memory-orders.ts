/**
 * Test support (not built into dist): the order and product repositories and the outbox held in
 * memory, for unit tests of the order command handlers without PostgreSQL. They keep the contracts
 * the handlers rely on (a customer is found only in its own store, stock is taken per product in
 * ascending id order and never below zero, each store numbers its orders from 1001); what the
 * database adds beneath them (row-level security, rollback of a refused order) is covered by the
 * e2e tests.
 */
import type { OutboxService } from '@app/core';
import type { OrderStatus } from '../orders/order-status.js';
import type { NewOrderItem, OrderCustomer, OrderRepository, StockMoveOfOrder } from '../orders/order.repository.js';
import type { OrderDetailsRow, OrderItemRow, OrderRow } from '../orders/order.js';
import type { ProductRow } from '../products/product.js';
import type { ProductRepository } from '../products/product.repository.js';

export interface CustomerRecord extends OrderCustomer {
  store_id: string;
  user_id: string | null;
}

const AT = new Date('2026-11-22T10:00:00.000Z');

export function product(fields: Pick<ProductRow, 'id' | 'store_id'> & Partial<ProductRow>): ProductRow {
  return {
    name: `Product ${fields.id.slice(0, 4)}`,
    description: null,
    price: '10.00',
    compare_price: null,
    category: null,
    seo_keywords: [],
    status: 'active',
    inventory_quantity: 10,
    created_at: AT,
    updated_at: AT,
    ...fields,
  };
}

type OrdersPort = Pick<
  OrderRepository,
  | 'findCustomer'
  | 'findCustomerOfUser'
  | 'insert'
  | 'insertItems'
  | 'findDetails'
  | 'findForUpdate'
  | 'find'
  | 'takeStock'
  | 'returnStock'
  | 'updateStatus'
>;

/** Stores' customers, products, orders and their items. */
export class InMemoryShop implements OrdersPort, Pick<ProductRepository, 'findManyVisible'> {
  readonly products = new Map<string, ProductRow>();
  readonly customers: CustomerRecord[] = [];
  readonly orders = new Map<string, OrderRow>();
  readonly items = new Map<string, OrderItemRow[]>();
  /** Status changes written, in order. */
  readonly statusWrites: { id: string; status: OrderStatus }[] = [];
  /**
   * Which orders `findForUpdate` may lock. Row-level security lets a customer lock only its own
   * pending order; a test of a customer's request sets this to say so.
   */
  lockable: (order: OrderRow) => boolean = () => true;
  private readonly numbers = new Map<string, number>();
  private sequence = 0;

  constructor(init: { products?: ProductRow[]; customers?: CustomerRecord[] } = {}) {
    for (const row of init.products ?? []) this.products.set(row.id, row);
    this.customers.push(...(init.customers ?? []));
  }

  /** The repositories' types, for a handler's constructor. */
  get asOrders(): OrderRepository {
    return this as unknown as OrderRepository;
  }

  get asProducts(): ProductRepository {
    return this as unknown as ProductRepository;
  }

  async findCustomer(storeId: string, customerId: string): Promise<OrderCustomer | null> {
    const found = this.customers.find((c) => c.id === customerId && c.store_id === storeId);
    return found ? { id: found.id, name: found.name, email: found.email } : null;
  }

  async findCustomerOfUser(storeId: string, userId: string): Promise<OrderCustomer | null> {
    const found = this.customers.find((c) => c.user_id === userId && c.store_id === storeId);
    return found ? { id: found.id, name: found.name, email: found.email } : null;
  }

  async findManyVisible(ids: string[]): Promise<ProductRow[]> {
    return ids.flatMap((id) => (this.products.has(id) ? [this.products.get(id)!] : []));
  }

  async insert(
    storeId: string,
    fields: { customerId: string | null; total: string; placedBy: string | null },
  ): Promise<OrderRow> {
    return this.addOrder(storeId, { customer_id: fields.customerId, total: fields.total, placed_by: fields.placedBy });
  }

  async insertItems(order: OrderRow, items: NewOrderItem[]): Promise<OrderItemRow[]> {
    const stored = items.map((item, index) => ({ order_id: order.id, position: index + 1, ...item }));
    this.items.set(order.id, stored);
    return stored.map((item) => ({ ...item }));
  }

  async findDetails(id: string): Promise<OrderDetailsRow | null> {
    const order = this.orders.get(id);
    if (!order) return null;
    const customer = this.customers.find((c) => c.id === order.customer_id);
    return {
      ...order,
      customer_name: customer?.name ?? null,
      customer_email: customer?.email ?? null,
      items: this.items.get(id) ?? [],
    };
  }

  async findForUpdate(id: string): Promise<OrderRow | null> {
    const order = this.orders.get(id);
    return order && this.lockable(order) ? { ...order } : null;
  }

  async find(id: string): Promise<OrderRow | null> {
    const order = this.orders.get(id);
    return order ? { ...order } : null;
  }

  async updateStatus(id: string, status: OrderStatus): Promise<void> {
    this.statusWrites.push({ id, status });
    this.orders.get(id)!.status = status;
  }

  /** Per product in ascending id order; the first product short ends the list with `taken: false`. */
  async takeStock(orderId: string): Promise<(StockMoveOfOrder & { taken: boolean })[]> {
    const moves: (StockMoveOfOrder & { taken: boolean })[] = [];
    for (const item of this.sortedItems(orderId)) {
      const row = this.products.get(item.product_id!)!;
      const previous = row.inventory_quantity;
      if (previous < item.quantity) {
        moves.push({ product_id: row.id, previous_quantity: previous, quantity: previous, delta: 0, taken: false });
        return moves;
      }
      row.inventory_quantity = previous - item.quantity;
      moves.push({
        product_id: row.id,
        previous_quantity: previous,
        quantity: row.inventory_quantity,
        delta: -item.quantity,
        taken: true,
      });
    }
    return moves;
  }

  /** Gives back the items whose product still exists, in ascending product id order. */
  async returnStock(orderId: string): Promise<StockMoveOfOrder[]> {
    return this.sortedItems(orderId)
      .filter((item) => item.product_id !== null && this.products.has(item.product_id))
      .map((item) => {
        const row = this.products.get(item.product_id!)!;
        const previous = row.inventory_quantity;
        row.inventory_quantity = previous + item.quantity;
        return {
          product_id: row.id,
          previous_quantity: previous,
          quantity: row.inventory_quantity,
          delta: item.quantity,
        };
      });
  }

  /** Puts an order in place as if it had been placed earlier. */
  seedOrder(
    fields: Pick<OrderRow, 'store_id' | 'status'> & {
      customer_id?: string | null;
      items: { product_id: string; quantity: number }[];
    },
  ) {
    const order = this.addOrder(fields.store_id, { status: fields.status, customer_id: fields.customer_id ?? null });
    this.items.set(
      order.id,
      fields.items.map((item, index) => {
        const row = this.products.get(item.product_id)!;
        return {
          order_id: order.id,
          product_id: row.id,
          position: index + 1,
          name: row.name,
          quantity: item.quantity,
          price: row.price,
        };
      }),
    );
    return order;
  }

  /** A new order of the store with its next number ("1001", "1002", …). */
  private addOrder(storeId: string, fields: Partial<OrderRow>): OrderRow {
    const number = (this.numbers.get(storeId) ?? 1000) + 1;
    this.numbers.set(storeId, number);
    this.sequence += 1;
    const order: OrderRow = {
      id: `00000000-0000-4000-8000-${String(this.sequence).padStart(12, '0')}`,
      store_id: storeId,
      order_number: String(number),
      customer_id: null,
      status: 'pending',
      currency: 'USD',
      total: '0.00',
      placed_by: null,
      created_at: AT,
      updated_at: AT,
      ...fields,
    };
    this.orders.set(order.id, order);
    return order;
  }

  private sortedItems(orderId: string): OrderItemRow[] {
    return [...(this.items.get(orderId) ?? [])].sort((a, b) => ((a.product_id ?? '') < (b.product_id ?? '') ? -1 : 1));
  }
}

/** An outbox that records what a handler appends, in order. */
export class RecordingOutbox {
  readonly events: { storeId: string; event: string; data: object }[] = [];

  get asOutbox(): OutboxService {
    return this as unknown as OutboxService;
  }

  async append(storeId: string, event: string, data: object): Promise<void> {
    this.events.push({ storeId, event, data });
  }

  async appendAll(storeId: string, events: { event: string; data: object }[]): Promise<void> {
    for (const { event, data } of events) this.events.push({ storeId, event, data });
  }

  kinds(): string[] {
    return this.events.map((entry) => entry.event);
  }
}
