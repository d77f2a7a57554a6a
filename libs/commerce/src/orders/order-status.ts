/**
 * The order status machine in one pure module: the table, what it allows, and which specific
 * event each move fires (besides `order.updated`). Used by the status handler; tested against the
 * table written out independently in order-status.spec.ts by a property-based test.
 */
export const ORDER_STATUSES = ['pending', 'paid', 'shipped', 'delivered', 'cancelled', 'refunded'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** The status every order starts in. */
export const INITIAL_ORDER_STATUS: OrderStatus = 'pending';

/** from → the statuses it may move to. `cancelled` and `refunded` are terminal. */
export const ORDER_TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = Object.freeze({
  pending: Object.freeze(['paid', 'cancelled'] as const),
  paid: Object.freeze(['shipped', 'cancelled', 'refunded'] as const),
  shipped: Object.freeze(['delivered', 'refunded'] as const),
  delivered: Object.freeze(['refunded'] as const),
  cancelled: Object.freeze([] as const),
  refunded: Object.freeze([] as const),
});

/** The specific event of a move, fired together with `order.updated`. */
export type OrderStatusEvent = 'order.paid' | 'order.shipped' | 'order.delivered' | 'order.cancelled' | 'order.refunded';

const STATUS_EVENTS: Readonly<Record<OrderStatus, OrderStatusEvent | null>> = Object.freeze({
  pending: null,
  paid: 'order.paid',
  shipped: 'order.shipped',
  delivered: 'order.delivered',
  cancelled: 'order.cancelled',
  refunded: 'order.refunded',
});

export function isOrderStatus(value: unknown): value is OrderStatus {
  return typeof value === 'string' && (ORDER_STATUSES as readonly string[]).includes(value);
}

/** The statuses `from` may move to; none for a terminal or unknown status. */
export function allowedTransitions(from: string): readonly OrderStatus[] {
  return isOrderStatus(from) ? ORDER_TRANSITIONS[from] : [];
}

/** Whether the table allows `from` → `to` (never the same status). */
export function canTransition(from: string, to: string): boolean {
  return allowedTransitions(from).some((status) => status === to);
}

export function isTerminal(status: OrderStatus): boolean {
  return ORDER_TRANSITIONS[status].length === 0;
}

/** The specific event fired when an order moves to `to`; null for `pending`, which no move reaches. */
export function eventFor(to: OrderStatus): OrderStatusEvent | null {
  return STATUS_EVENTS[to];
}
