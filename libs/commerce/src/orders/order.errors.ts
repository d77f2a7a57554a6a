import { CommerceError } from '../commerce-error.js';
import type { OrderStatus } from './order-status.js';

/** The order named does not exist, or the caller cannot see it. */
export class OrderNotFound extends CommerceError {
  readonly kind = 'order_not_found';

  constructor() {
    super('Order not found');
  }
}

/** The customer an order is placed for is not one of the store's. */
export class OrderCustomerNotFound extends CommerceError {
  readonly kind = 'order_customer_not_found';

  constructor() {
    super('Customer not found');
  }
}

/** The status machine has no move from the order's status to the one asked for. */
export class InvalidOrderTransition extends CommerceError {
  readonly kind = 'invalid_order_transition';

  constructor(
    readonly from: OrderStatus,
    readonly to: OrderStatus,
    readonly allowed: readonly OrderStatus[],
  ) {
    super(
      `An order cannot move from ${from} to ${to}` +
        (allowed.length ? ` (allowed: ${allowed.join(', ')})` : `: ${from} is final`),
    );
  }
}

/** Why a customer may not do this to an order, or place it for whom it asked. */
export type CustomerOrderRule =
  | 'customers_only_cancel'
  | 'customers_cancel_pending_only'
  | 'customers_order_for_themselves'
  | 'customer_record_missing'
  | 'orders_permission_needed';

/** A move or an order the caller's relation to the store does not allow. */
export class OrderForbidden extends CommerceError {
  readonly kind = 'order_forbidden';

  constructor(
    readonly rule: CustomerOrderRule,
    /** The order's status, for `customers_cancel_pending_only`. */
    status?: OrderStatus,
  ) {
    super(forbiddenMessage(rule, status));
  }
}

function forbiddenMessage(rule: CustomerOrderRule, status: OrderStatus | undefined): string {
  switch (rule) {
    case 'customers_only_cancel':
      return 'Customers may only cancel their orders';
    case 'customers_cancel_pending_only':
      return `Only a pending order can be cancelled by the customer; this one is ${status}`;
    case 'customers_order_for_themselves':
      return 'Customers place orders for themselves only';
    case 'customer_record_missing':
      return 'Your account has no customer record in this store';
    case 'orders_permission_needed':
      return 'This needs the "orders" permission on the store';
  }
}

/** The sum of the items exceeds what an order may total. */
export class OrderTotalTooLarge extends CommerceError {
  readonly kind = 'order_total_too_large';

  constructor(readonly max: string) {
    super(`The order total exceeds ${max}`);
  }
}

/** Items whose product is not an active product of the store: `index` is the item's place in the order. */
export class ProductsNotOrderable extends CommerceError {
  readonly kind = 'products_not_orderable';

  constructor(readonly refused: readonly { index: number; product_id: string }[]) {
    super(
      refused.length === 1
        ? `Product ${refused[0].product_id} cannot be ordered`
        : `${refused.length} products cannot be ordered`,
    );
  }
}

/** One item an order could not take stock for. */
export interface ShortItem {
  product_id: string;
  requested: number;
  available: number;
}

/** The first item short of stock (named `productName`), and every later one that is short too. */
export class OrderOutOfStock extends CommerceError {
  readonly kind = 'order_out_of_stock';

  constructor(
    productName: string,
    readonly short: readonly ShortItem[],
  ) {
    super(
      short.length === 1
        ? `Only ${short[0].available} of "${productName}" in stock: cannot order ${short[0].requested}`
        : `${short.length} items are short of stock`,
    );
  }
}

export type OrderError =
  | OrderNotFound
  | OrderCustomerNotFound
  | InvalidOrderTransition
  | OrderForbidden
  | OrderTotalTooLarge
  | ProductsNotOrderable
  | OrderOutOfStock;
