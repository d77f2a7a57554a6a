import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiKeyNotFound, LiveApiKeyLimitReached } from './api-keys/api-key.errors.js';
import { InvalidFields } from './commerce-error.js';
import { commerceErrorAnswer, type CommerceRefusal } from './commerce-errors.http.js';
import { CustomerEmailTaken, CustomerNotFound } from './customers/customer.errors.js';
import { MemberAlreadyInvited, MemberNotFound } from './members/member.errors.js';
import {
  InvalidOrderTransition,
  OrderCustomerNotFound,
  OrderForbidden,
  OrderNotFound,
  OrderOutOfStock,
  OrderTotalTooLarge,
  ProductsNotOrderable,
} from './orders/order.errors.js';
import { InventoryOutOfStock, ProductNotFound, StockLimitExceeded } from './products/product.errors.js';
import { StoreNotFound } from './stores/store.errors.js';

const P = '10000000-0000-4000-8000-000000000001';

/** Each refusal and the answer the contract (docs/api.md, the e2e tests) gives it: status, code, message, details. */
const ANSWERS: [CommerceRefusal, number, string, string, unknown][] = [
  [
    new InvalidFields([{ field: 'name', message: 'name should not be empty' }]),
    400,
    'VALIDATION_FAILED',
    'Request validation failed',
    [{ field: 'name', message: 'name should not be empty' }],
  ],
  [new OrderNotFound(), 404, 'NOT_FOUND', 'Order not found', undefined],
  [new OrderCustomerNotFound(), 404, 'NOT_FOUND', 'Customer not found', undefined],
  [new ProductNotFound(), 404, 'NOT_FOUND', 'Product not found', undefined],
  [new CustomerNotFound(), 404, 'NOT_FOUND', 'Customer not found', undefined],
  [new MemberNotFound(), 404, 'NOT_FOUND', 'Member not found', undefined],
  [new StoreNotFound(), 404, 'NOT_FOUND', 'Store not found', undefined],
  [new ApiKeyNotFound(), 404, 'NOT_FOUND', 'API key not found', undefined],
  [
    new OrderForbidden('orders_permission_needed'),
    403,
    'FORBIDDEN',
    'This needs the "orders" permission on the store',
    undefined,
  ],
  [
    new OrderForbidden('customer_record_missing'),
    403,
    'FORBIDDEN',
    'Your account has no customer record in this store',
    undefined,
  ],
  [
    new InvalidOrderTransition('paid', 'pending', ['shipped', 'cancelled', 'refunded']),
    409,
    'INVALID_TRANSITION',
    'An order cannot move from paid to pending (allowed: shipped, cancelled, refunded)',
    { from: 'paid', to: 'pending', allowed: ['shipped', 'cancelled', 'refunded'] },
  ],
  [
    new OrderTotalTooLarge('999999999999.99'),
    422,
    'UNPROCESSABLE',
    'The order total exceeds 999999999999.99',
    undefined,
  ],
  [
    new ProductsNotOrderable([{ index: 2, product_id: P }]),
    422,
    'UNPROCESSABLE',
    `Product ${P} cannot be ordered`,
    [{ field: 'items.2.product_id', product_id: P, message: 'is not an active product of this store' }],
  ],
  [
    new OrderOutOfStock('Mug', [{ product_id: P, requested: 3, available: 1 }]),
    409,
    'OUT_OF_STOCK',
    'Only 1 of "Mug" in stock: cannot order 3',
    [{ product_id: P, requested: 3, available: 1 }],
  ],
  [
    new InventoryOutOfStock({ product_id: P, available: 1, requested_delta: -3 }),
    409,
    'OUT_OF_STOCK',
    'Only 1 in stock: cannot remove 3',
    { product_id: P, available: 1, requested_delta: -3 },
  ],
  [
    new StockLimitExceeded({ product_id: P, available: 10, requested_delta: 5 }, 12),
    409,
    'CONFLICT',
    'Stock cannot exceed 12: 10 in stock, adding 5',
    { product_id: P, available: 10, requested_delta: 5 },
  ],
  [new CustomerEmailTaken(), 409, 'CONFLICT', 'This store already has a customer with that e-mail', undefined],
  [
    new MemberAlreadyInvited(),
    409,
    'CONFLICT',
    'This store already has a member or invitation with that e-mail',
    undefined,
  ],
  [
    new LiveApiKeyLimitReached(50),
    409,
    'CONFLICT',
    'A store may hold at most 50 live keys (not revoked, not expired): revoke one to make another',
    undefined,
  ],
];

describe('commerce refusals over HTTP', () => {
  it.each(ANSWERS)('%s answers %i %s', (error, status, code, message, details) => {
    const answer = commerceErrorAnswer(error);
    expect({ status: answer.getStatus(), code: answer.code, message: answer.message, details: answer.details }).toEqual(
      {
        status,
        code,
        message,
        details,
      },
    );
  });

  it('covers every kind of refusal', () => {
    // A Record, so that a new kind does not compile until it is listed here, and fails until it has an answer above.
    const every: Record<CommerceRefusal['kind'], true> = {
      invalid_fields: true,
      order_not_found: true,
      order_customer_not_found: true,
      invalid_order_transition: true,
      order_forbidden: true,
      order_total_too_large: true,
      products_not_orderable: true,
      order_out_of_stock: true,
      product_not_found: true,
      inventory_out_of_stock: true,
      stock_limit_exceeded: true,
      customer_not_found: true,
      customer_email_taken: true,
      member_not_found: true,
      member_already_invited: true,
      store_not_found: true,
      api_key_not_found: true,
      live_api_key_limit_reached: true,
    };
    expect([...new Set(ANSWERS.map(([error]) => error.kind))].sort()).toEqual(Object.keys(every).sort());
  });
});

describe("commerce's command handlers", () => {
  it(
    'refuse with their context’s errors, answered over HTTP ' + 'only by commerceErrorAnswer: none builds an ApiError',
    () => {
      const root = fileURLToPath(new URL('.', import.meta.url));
      const handlers = (dir: string): string[] =>
        fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
          const full = path.join(dir, entry.name);
          if (entry.isDirectory()) return handlers(full);
          return full.includes(`${path.sep}commands${path.sep}`) &&
            entry.name.endsWith('.ts') &&
            !entry.name.endsWith('.spec.ts')
            ? [full]
            : [];
        });
      const found = handlers(root);
      expect(found.length).toBeGreaterThanOrEqual(12);
      expect(
        found
          .filter((file) => /\bApiError\b/.test(fs.readFileSync(file, 'utf8')))
          .map((file) => path.relative(root, file)),
      ).toEqual([]);
    },
  );
});
