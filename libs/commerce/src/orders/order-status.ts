/**
 * The order status machine in one pure module: the table of moves, each with the specific event it
 * raises (besides `order.updated`), and what it allows. `moveOrder` applies it; a property-based test
 * checks it against the table written out independently in order-status.spec.ts.
 */
export const ORDER_STATUSES = ['pending', 'paid', 'shipped', 'delivered', 'cancelled', 'refunded'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** The status every order starts in. */
export const INITIAL_ORDER_STATUS: OrderStatus = 'pending';

/** The specific event of a move, raised together with `order.updated`. */
export type OrderStatusEvent =
  'order.paid' | 'order.shipped' | 'order.delivered' | 'order.cancelled' | 'order.refunded';

/**
 * The status machine: from → each status it may move to, and the event that move raises (besides
 * `order.updated`). `cancelled` and `refunded` are terminal. `moveOrder` (order-lifecycle.ts) applies it.
 */
export const ORDER_TRANSITIONS: Readonly<
  Record<OrderStatus, Readonly<Partial<Record<OrderStatus, OrderStatusEvent>>>>
> = Object.freeze({
  pending: Object.freeze({ paid: 'order.paid', cancelled: 'order.cancelled' } as const),
  paid: Object.freeze({ shipped: 'order.shipped', cancelled: 'order.cancelled', refunded: 'order.refunded' } as const),
  shipped: Object.freeze({ delivered: 'order.delivered', refunded: 'order.refunded' } as const),
  delivered: Object.freeze({ refunded: 'order.refunded' } as const),
  cancelled: Object.freeze({}),
  refunded: Object.freeze({}),
});

export function isOrderStatus(value: unknown): value is OrderStatus {
  return typeof value === 'string' && (ORDER_STATUSES as readonly string[]).includes(value);
}

/** The statuses `from` may move to, in the table's order; none for a terminal or unknown status. */
export function allowedTransitions(from: string): readonly OrderStatus[] {
  return isOrderStatus(from) ? (Object.keys(ORDER_TRANSITIONS[from]) as OrderStatus[]) : [];
}

/** Whether the table allows `from` → `to` (never the same status). */
export function canTransition(from: string, to: string): boolean {
  return allowedTransitions(from).some((status) => status === to);
}

export function isTerminal(status: OrderStatus): boolean {
  return allowedTransitions(status).length === 0;
}
