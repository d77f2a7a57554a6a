import type { StoreEventOf } from '@app/core';
import type { InventoryEventData, OrderEventData } from '../events/commerce-events.js';
import type { ProductRow } from '../products/product.js';
import {
  InvalidOrderTransition,
  OrderForbidden,
  OrderOutOfStock,
  OrderTotalTooLarge,
  ProductsNotOrderable,
  type OrderError,
} from './order.errors.js';
import { ORDER_TRANSITIONS, allowedTransitions, type OrderStatus } from './order-status.js';
import { MAX_ORDER_TOTAL_CENTS, fromCents, toCents } from './order.js';

/**
 * What placing and moving an order decide, and the events each raises, without I/O: the handlers
 * read and write through the repositories and hand these functions' events to the outbox, in the
 * change's transaction. Refusals are `OrderError`s (order.errors.ts).
 */

/** An item as the caller asked for it. */
export interface OrderLine {
  product_id: string;
  quantity: number;
}

/** An item at its catalog name and unit price (a NUMERIC literal), as the order keeps it. */
export interface PricedLine extends OrderLine {
  name: string;
  price: string;
}

/** One product's stock move, as the database made it. */
export interface StockMove {
  product_id: string;
  previous_quantity: number;
  quantity: number;
  delta: number;
}

/**
 * Prices the items from the catalog (`catalog`: the products found by id): every item must be an
 * active product of the store, and the total fit the `orders.total` column. Returns the items in the
 * order given and the total as a NUMERIC literal.
 */
export function priceOrder(
  storeId: string,
  lines: readonly OrderLine[],
  catalog: ReadonlyMap<string, ProductRow>,
): { items: PricedLine[]; total: string } {
  const refused = lines.flatMap((line, index) =>
    orderable(storeId, catalog.get(line.product_id)) ? [] : [{ index, product_id: line.product_id }],
  );
  if (refused.length > 0) throw new ProductsNotOrderable(refused);
  const items = lines.map((line) => {
    const product = catalog.get(line.product_id)!;
    return { product_id: product.id, name: product.name, quantity: line.quantity, price: product.price };
  });
  const total = items.reduce((sum, item) => sum + toCents(item.price) * BigInt(item.quantity), 0n);
  if (total > MAX_ORDER_TOTAL_CENTS) throw new OrderTotalTooLarge(fromCents(MAX_ORDER_TOTAL_CENTS));
  return { items, total: fromCents(total) };
}

/**
 * The events of a placed order: `order.created`, then one `inventory.updated` per item in the order the
 * items were given (the stock was taken in product id order).
 */
export function orderPlaced(
  order: OrderEventData,
  lines: readonly OrderLine[],
  taken: readonly StockMove[],
): StoreEventOf[] {
  const byProduct = new Map(taken.map((move) => [move.product_id, move]));
  const stock = lines.map((line) => inventoryMoved(byProduct.get(line.product_id)!, `order ${order.order_number}`));
  return [{ event: 'order.created', data: order }, ...stock];
}

/**
 * The items whose stock was not taken when the database found `failed` short: that one and every later
 * one, since stock is taken in ascending product id order.
 */
export function untakenLines(lines: readonly OrderLine[], failed: string): OrderLine[] {
  return [...lines].sort((a, b) => compareIds(a.product_id, b.product_id)).filter((line) => line.product_id >= failed);
}

/**
 * Why an order's stock could not be taken. `untaken`: untakenLines; `current`: their products as they
 * are now. A product made inactive or deleted since it was priced is not a stock problem
 * (ProductsNotOrderable); otherwise OrderOutOfStock names the item that failed and every later one
 * that is short too.
 */
export function stockRefusal(
  storeId: string,
  lines: readonly OrderLine[],
  untaken: readonly OrderLine[],
  current: ReadonlyMap<string, ProductRow>,
): OrderError {
  const failed = untaken[0];
  const product = current.get(failed.product_id);
  if (!orderable(storeId, product)) {
    return new ProductsNotOrderable([
      { index: lines.findIndex((line) => line.product_id === failed.product_id), product_id: failed.product_id },
    ]);
  }
  const available = (line: OrderLine) => current.get(line.product_id)?.inventory_quantity ?? 0;
  const short = untaken
    .filter((line, index) => index === 0 || available(line) < line.quantity)
    .map((line) => ({ product_id: line.product_id, requested: line.quantity, available: available(line) }));
  return new OrderOutOfStock(product.name, short);
}

/** Who moves an order: staff (the owner, an admin, a member holding `orders`), or the order's own customer. */
export type OrderMover = 'staff' | 'customer';

/** A move `moveOrder` allowed. */
export interface OrderMove {
  readonly from: OrderStatus;
  readonly to: OrderStatus;
  /** Whether the order's stock comes back (cancelling; a refund does not restock). */
  readonly restocks: boolean;
  /**
   * The move's events: `order.updated`, the move's own (`order.paid`, …; ORDER_TRANSITIONS), both with
   * the order after the change, then one `inventory.updated` per product given back.
   */
  events(after: OrderEventData, returned: readonly StockMove[]): StoreEventOf[];
}

/**
 * Moves an order to `to`, or refuses: a customer may only cancel, and only a pending order; the status
 * machine must allow the move (InvalidOrderTransition, with the statuses it allows).
 */
export function moveOrder(order: { status: OrderStatus }, to: OrderStatus, by: OrderMover): OrderMove {
  const from = order.status;
  if (by === 'customer') {
    if (to !== 'cancelled') throw new OrderForbidden('customers_only_cancel');
    if (from !== 'pending') throw new OrderForbidden('customers_cancel_pending_only', from);
  }
  const event = ORDER_TRANSITIONS[from]?.[to];
  if (event === undefined) throw new InvalidOrderTransition(from, to, allowedTransitions(from));
  return {
    from,
    to,
    restocks: to === 'cancelled',
    events: (after, returned) => [
      { event: 'order.updated', data: after },
      { event, data: after },
      ...returned.map((move) => inventoryMoved(move, `order ${after.order_number} cancelled`)),
    ],
  };
}

function inventoryMoved(move: StockMove, reason: string): StoreEventOf<'inventory.updated'> {
  const data: InventoryEventData = {
    product_id: move.product_id,
    previous_quantity: move.previous_quantity,
    quantity: move.quantity,
    delta: move.delta,
    reason,
  };
  return { event: 'inventory.updated', data };
}

function orderable(storeId: string, product: ProductRow | undefined): product is ProductRow {
  return product?.store_id === storeId && product.status === 'active';
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
