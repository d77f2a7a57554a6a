import { CommerceError } from '../commerce-error.js';

/** The product named does not exist, or the caller cannot see it. */
export class ProductNotFound extends CommerceError {
  readonly kind = 'product_not_found';

  constructor() {
    super('Product not found');
  }
}

/** What a refused stock move asked, and what there was. */
export interface RefusedStockMove {
  product_id: string;
  available: number;
  requested_delta: number;
}

/** Stock may not be taken below zero. */
export class InventoryOutOfStock extends CommerceError {
  readonly kind = 'inventory_out_of_stock';

  constructor(readonly move: RefusedStockMove) {
    super(`Only ${move.available} in stock: cannot remove ${-move.requested_delta}`);
  }
}

/** Stock may not go above the most a product holds (`max`). */
export class StockLimitExceeded extends CommerceError {
  readonly kind = 'stock_limit_exceeded';

  constructor(
    readonly move: RefusedStockMove,
    max: number,
  ) {
    super(`Stock cannot exceed ${max}: ${move.available} in stock, adding ${move.requested_delta}`);
  }
}

export type ProductError = ProductNotFound | InventoryOutOfStock | StockLimitExceeded;
