import { InvalidFields } from '../commerce-error.js';
import { checkProductUpdate } from './product-changes.js';

const refusal = (run: () => void) => {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidFields) return error.fields;
    throw error;
  }
  return null;
};

describe('checkProductUpdate', () => {
  const current = { price: '20.00', compare_price: '25.00' };

  it('keeps compare_price at or above the price the product will have', () => {
    expect(refusal(() => checkProductUpdate(current, { price: 25 }))).toBeNull();
    expect(refusal(() => checkProductUpdate(current, { price: 25.01 }))).toEqual([
      { field: 'compare_price', message: 'compare_price must be greater than or equal to price' },
    ]);
    expect(refusal(() => checkProductUpdate(current, { compare_price: 19.99 }))).toHaveLength(1);
    expect(refusal(() => checkProductUpdate(current, { compare_price: null, price: 99 }))).toBeNull();
    expect(refusal(() => checkProductUpdate({ price: '20.00', compare_price: null }, { price: 1000 }))).toBeNull();
    expect(
      refusal(() => checkProductUpdate({ price: '20.00', compare_price: null }, { compare_price: 10 })),
    ).toHaveLength(1);
  });

  it('leaves stock to the inventory route', () => {
    expect(refusal(() => checkProductUpdate(current, { inventory_quantity: 5 }))).toEqual([
      { field: 'inventory_quantity', message: 'change stock with POST /functions/v1/products/{product_id}/inventory' },
    ]);
  });
});
