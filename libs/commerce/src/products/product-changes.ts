import { InvalidFields } from '../commerce-error.js';
import type { ProductRow } from './product.js';

/** What an update may set that the rules below look at. */
export interface ProductUpdate {
  price?: number;
  compare_price?: number | null;
  inventory_quantity?: number;
}

/**
 * Refuses an update of `current` that sets the stock (only the inventory route moves it, so that every
 * move raises `inventory.updated`), or that leaves compare_price below the price the product will have.
 */
export function checkProductUpdate(current: Pick<ProductRow, 'price' | 'compare_price'>, fields: ProductUpdate): void {
  if (fields.inventory_quantity !== undefined) {
    throw new InvalidFields([
      { field: 'inventory_quantity', message: 'change stock with POST /functions/v1/products/{product_id}/inventory' },
    ]);
  }
  const price = fields.price ?? Number(current.price);
  const compare =
    fields.compare_price !== undefined
      ? fields.compare_price
      : current.compare_price === null
        ? null
        : Number(current.compare_price);
  if (compare !== null && compare < price) {
    throw new InvalidFields([
      { field: 'compare_price', message: 'compare_price must be greater than or equal to price' },
    ]);
  }
}
