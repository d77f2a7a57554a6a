import fs from 'node:fs';
import { MAX_STOCK } from './product.js';

/** The most stock a product holds is written into commerce's sql/ files as a number; the API checks MAX_STOCK. */
describe('MAX_STOCK and commerce/sql', () => {
  it('bounds every stock move in the database by the same number', () => {
    const sql = ['products.sql', 'orders.sql']
      .map((file) => fs.readFileSync(new URL(`../sql/${file}`, import.meta.url), 'utf8'))
      .join('\n');
    const bounds = [...sql.matchAll(/<= (\d{6,})|BETWEEN 0 AND (\d+)/g)].map((match) => Number(match[1] ?? match[2]));
    expect(bounds).toHaveLength(2);
    expect(new Set(bounds)).toEqual(new Set([MAX_STOCK]));
  });
});
