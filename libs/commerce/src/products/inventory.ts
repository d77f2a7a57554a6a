import type { StoreEventOf } from '@app/core';
import { InvalidFields } from '../commerce-error.js';
import { InventoryOutOfStock, StockLimitExceeded } from './product.errors.js';

/**
 * What a stock adjustment decides, and the event it raises, without I/O. The database moves the stock
 * (`app_move_stock`, never below zero nor above the most a product holds); the handler hands the
 * events to the outbox in the same transaction.
 */

/** An adjustment: by `delta`, or to an absolute `quantity`; exactly one of them. */
export interface StockChange {
  delta?: number;
  quantity?: number;
}

/** Refuses an adjustment that gives both of delta and quantity, or neither. */
export function checkStockChange(change: StockChange): void {
  if ((change.delta === undefined) === (change.quantity === undefined)) {
    throw new InvalidFields([{ field: 'delta', message: 'give exactly one of delta or quantity' }]);
  }
}

/** The move an adjustment makes from `current`, the stock as read under the row's lock. */
export function stockDelta(current: number, change: StockChange): number {
  return change.delta ?? change.quantity! - current;
}

/**
 * The outcome of the move of `delta` the database made (`moved`) or refused (null: it would go below
 * zero, or above `max` for a delta that adds), from `current` in stock: the `inventory.updated`
 * event, none for a move of 0, or the refusal.
 */
export function stockMoved(
  productId: string,
  current: number,
  delta: number,
  moved: { previous_quantity: number; quantity: number } | null,
  reason: string | null,
  max: number,
): StoreEventOf<'inventory.updated'>[] {
  if (!moved) {
    const refused = { product_id: productId, available: current, requested_delta: delta };
    throw delta > 0 ? new StockLimitExceeded(refused, max) : new InventoryOutOfStock(refused);
  }
  if (delta === 0) return [];
  const data = {
    product_id: productId,
    previous_quantity: moved.previous_quantity,
    quantity: moved.quantity,
    delta,
    reason,
  };
  return [{ event: 'inventory.updated', data }];
}
