import { InvalidFields } from '../commerce-error.js';
import { checkStockChange, stockDelta, stockMoved } from './inventory.js';
import { InventoryOutOfStock, StockLimitExceeded } from './product.errors.js';

const MUG = '10000000-0000-4000-8000-000000000001';
const MAX = 1_000_000;

describe('stock adjustments', () => {
  it('takes exactly one of delta and quantity', () => {
    expect(() => checkStockChange({ delta: 2 })).not.toThrow();
    expect(() => checkStockChange({ quantity: 0 })).not.toThrow();
    for (const change of [{}, { delta: 1, quantity: 1 }]) {
      expect(() => checkStockChange(change)).toThrow(InvalidFields);
    }
  });

  it('turns an absolute quantity into a move from the stock read under the lock', () => {
    expect(stockDelta(7, { quantity: 3 })).toBe(-4);
    expect(stockDelta(7, { quantity: 7 })).toBe(0);
    expect(stockDelta(7, { delta: 5 })).toBe(5);
  });

  it('raises one inventory.updated with the move the database made, and none for a move of 0', () => {
    expect(stockMoved(MUG, 7, -3, { previous_quantity: 7, quantity: 4 }, 'sold at the fair', MAX)).toEqual([
      {
        event: 'inventory.updated',
        data: { product_id: MUG, previous_quantity: 7, quantity: 4, delta: -3, reason: 'sold at the fair' },
      },
    ]);
    expect(stockMoved(MUG, 7, 0, { previous_quantity: 7, quantity: 7 }, null, MAX)).toEqual([]);
  });

  it('refuses a move the database refused: out of stock when taking, over the maximum when adding', () => {
    const taking = (() => {
      try {
        return stockMoved(MUG, 2, -5, null, null, MAX);
      } catch (error) {
        return error;
      }
    })();
    expect(taking).toBeInstanceOf(InventoryOutOfStock);
    expect(taking).toMatchObject({
      message: 'Only 2 in stock: cannot remove 5',
      move: { product_id: MUG, available: 2, requested_delta: -5 },
    });
    expect(() => stockMoved(MUG, 999_999, 2, null, null, MAX)).toThrow(
      new StockLimitExceeded({ product_id: MUG, available: 999_999, requested_delta: 2 }, MAX).message,
    );
    expect(() => stockMoved(MUG, 999_999, 2, null, null, MAX)).toThrow(
      'Stock cannot exceed 1000000: 999999 in stock, adding 2',
    );
  });
});
