import fc from 'fast-check';
import type { OrderEventData } from '../events/commerce-events.js';
import { product } from '../testing/in-memory-orders.js';
import { STORE_A, STORE_B } from '../testing/store-access.js';
import { moveOrder, orderPlaced, priceOrder, stockRefusal, untakenLines, type StockMove } from './order-lifecycle.js';
import {
  InvalidOrderTransition,
  OrderForbidden,
  OrderOutOfStock,
  OrderTotalTooLarge,
  ProductsNotOrderable,
} from './order.errors.js';
import { ORDER_STATUSES, type OrderStatus } from './order-status.js';

/** The moves of the contract and the event each raises besides order.updated, written out apart from the module. */
const MOVES: Record<OrderStatus, Partial<Record<OrderStatus, string>>> = {
  pending: { paid: 'order.paid', cancelled: 'order.cancelled' },
  paid: { shipped: 'order.shipped', cancelled: 'order.cancelled', refunded: 'order.refunded' },
  shipped: { delivered: 'order.delivered', refunded: 'order.refunded' },
  delivered: { refunded: 'order.refunded' },
  cancelled: {},
  refunded: {},
};

const MUG = '10000000-0000-4000-8000-000000000001';
const TOTE = '10000000-0000-4000-8000-000000000002';
const LAMP = '10000000-0000-4000-8000-000000000003';

function orderData(status: OrderStatus): OrderEventData {
  return { order_id: 'o1', order_number: '1007', total: 25, currency: 'USD', status, customer: null, items: [] };
}

const status = fc.constantFrom(...ORDER_STATUSES);
const thrown = (run: () => unknown): unknown => {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
};

describe('moveOrder', () => {
  it('moves staff along every move of the contract, raising order.updated then the move’s own event', () => {
    fc.assert(
      fc.property(status, status, (from, to) => {
        const event = MOVES[from][to];
        if (event === undefined) {
          const error = thrown(() => moveOrder({ status: from }, to, 'staff'));
          expect(error).toBeInstanceOf(InvalidOrderTransition);
          expect((error as InvalidOrderTransition).allowed).toEqual(Object.keys(MOVES[from]));
          return;
        }
        const move = moveOrder({ status: from }, to, 'staff');
        expect(move).toMatchObject({ from, to, restocks: to === 'cancelled' });
        const after = orderData(to);
        expect(move.events(after, [])).toEqual([
          { event: 'order.updated', data: after },
          { event, data: after },
        ]);
      }),
    );
  });

  it('pays a pending order with exactly order.updated and order.paid', () => {
    const after = orderData('paid');
    expect(moveOrder({ status: 'pending' }, 'paid', 'staff').events(after, [])).toEqual([
      { event: 'order.updated', data: after },
      { event: 'order.paid', data: after },
    ]);
  });

  it('says which moves a status allows, or that it is final', () => {
    expect(thrown(() => moveOrder({ status: 'pending' }, 'shipped', 'staff'))).toMatchObject({
      message: 'An order cannot move from pending to shipped (allowed: paid, cancelled)',
      from: 'pending',
      to: 'shipped',
      allowed: ['paid', 'cancelled'],
    });
    expect(thrown(() => moveOrder({ status: 'refunded' }, 'paid', 'staff'))).toMatchObject({
      message: 'An order cannot move from refunded to paid: refunded is final',
      allowed: [],
    });
  });

  it('gives back the stock of a cancelled order, one inventory.updated per product after the order’s events', () => {
    const returned: StockMove[] = [
      { product_id: MUG, previous_quantity: 7, quantity: 10, delta: 3 },
      { product_id: TOTE, previous_quantity: 0, quantity: 1, delta: 1 },
    ];
    const after = orderData('cancelled');
    const events = moveOrder({ status: 'paid' }, 'cancelled', 'staff').events(after, returned);
    expect(events.map((e) => e.event)).toEqual([
      'order.updated',
      'order.cancelled',
      'inventory.updated',
      'inventory.updated',
    ]);
    expect(events[2].data).toEqual({
      product_id: MUG,
      previous_quantity: 7,
      quantity: 10,
      delta: 3,
      reason: 'order 1007 cancelled',
    });
    expect(events[3].data).toMatchObject({ product_id: TOTE, delta: 1 });
  });

  it('lets a customer only cancel, and only a pending order', () => {
    expect(moveOrder({ status: 'pending' }, 'cancelled', 'customer')).toMatchObject({
      to: 'cancelled',
      restocks: true,
    });
    for (const to of ORDER_STATUSES.filter((s) => s !== 'cancelled')) {
      const error = thrown(() => moveOrder({ status: 'pending' }, to, 'customer'));
      expect(error, to).toBeInstanceOf(OrderForbidden);
      expect((error as OrderForbidden).message).toBe('Customers may only cancel their orders');
    }
    for (const from of ORDER_STATUSES.filter((s) => s !== 'pending')) {
      const error = thrown(() => moveOrder({ status: from }, 'cancelled', 'customer'));
      expect((error as OrderForbidden).message, from).toBe(
        `Only a pending order can be cancelled by the customer; this one is ${from}`,
      );
    }
  });
});

describe('placing an order', () => {
  const catalog = new Map(
    [
      product({ id: MUG, store_id: STORE_A, name: 'Mug', price: '12.50', inventory_quantity: 4 }),
      product({ id: TOTE, store_id: STORE_A, name: 'Tote', price: '0.10', inventory_quantity: 0 }),
      product({ id: LAMP, store_id: STORE_A, status: 'draft' }),
    ].map((p) => [p.id, p]),
  );

  it('prices the items from the catalog, in the order given, and sums them in cents', () => {
    const priced = priceOrder(
      STORE_A,
      [
        { product_id: TOTE, quantity: 3 },
        { product_id: MUG, quantity: 2 },
      ],
      catalog,
    );
    expect(priced.items).toEqual([
      { product_id: TOTE, name: 'Tote', quantity: 3, price: '0.10' },
      { product_id: MUG, name: 'Mug', quantity: 2, price: '12.50' },
    ]);
    expect(priced.total).toBe('25.30');
  });

  it('refuses, with each item’s index, what is not an active product of the store', () => {
    const other = new Map([...catalog, [TOTE, product({ id: TOTE, store_id: STORE_B })]]);
    const lines = [
      { product_id: MUG, quantity: 1 },
      { product_id: LAMP, quantity: 1 },
      { product_id: TOTE, quantity: 1 },
      { product_id: '10000000-0000-4000-8000-00000000dead', quantity: 1 },
    ];
    const error = thrown(() => priceOrder(STORE_A, lines, other)) as ProductsNotOrderable;
    expect(error).toBeInstanceOf(ProductsNotOrderable);
    expect(error.refused.map((r) => r.index)).toEqual([1, 2, 3]);
    expect(error.message).toBe('3 products cannot be ordered');
  });

  it('refuses a total the orders.total column cannot hold', () => {
    const dear = new Map([[MUG, product({ id: MUG, store_id: STORE_A, price: '99999999.99' })]]);
    expect(() => priceOrder(STORE_A, [{ product_id: MUG, quantity: 10_000 }], dear)).not.toThrow();
    const error = thrown(() =>
      priceOrder(
        STORE_A,
        [
          { product_id: MUG, quantity: 10_000 },
          { product_id: MUG, quantity: 1 },
        ],
        dear,
      ),
    );
    expect(error).toBeInstanceOf(OrderTotalTooLarge);
    expect((error as OrderTotalTooLarge).message).toBe('The order total exceeds 999999999999.99');
  });

  it('raises order.created, then one inventory.updated per item in the order the items were given', () => {
    const order = orderData('pending');
    const taken: StockMove[] = [
      { product_id: MUG, previous_quantity: 4, quantity: 2, delta: -2 },
      { product_id: TOTE, previous_quantity: 5, quantity: 2, delta: -3 },
    ];
    const lines = [
      { product_id: TOTE, quantity: 3 },
      { product_id: MUG, quantity: 2 },
    ];
    const events = orderPlaced(order, lines, taken);
    expect(events[0]).toEqual({ event: 'order.created', data: order });
    expect(events.slice(1)).toEqual([
      {
        event: 'inventory.updated',
        data: { product_id: TOTE, previous_quantity: 5, quantity: 2, delta: -3, reason: 'order 1007' },
      },
      {
        event: 'inventory.updated',
        data: { product_id: MUG, previous_quantity: 4, quantity: 2, delta: -2, reason: 'order 1007' },
      },
    ]);
  });

  it('names the item found short and every later one short too, not the earlier ones', () => {
    const lines = [
      { product_id: TOTE, quantity: 1 },
      { product_id: LAMP, quantity: 9 },
      { product_id: MUG, quantity: 9 },
    ];
    const current = new Map([...catalog, [LAMP, product({ id: LAMP, store_id: STORE_A, inventory_quantity: 1 })]]);
    // Stock is taken in product id order: MUG, TOTE, LAMP. TOTE (with none) failed; MUG was taken.
    const untaken = untakenLines(lines, TOTE);
    expect(untaken.map((line) => line.product_id)).toEqual([TOTE, LAMP]);
    const error = stockRefusal(STORE_A, lines, untaken, current);
    expect(error).toBeInstanceOf(OrderOutOfStock);
    expect((error as OrderOutOfStock).short).toEqual([
      { product_id: TOTE, requested: 1, available: 0 },
      { product_id: LAMP, requested: 9, available: 1 },
    ]);
    expect(error.message).toBe('2 items are short of stock');
    const alone = stockRefusal(STORE_A, lines, untakenLines(lines, LAMP), new Map([[LAMP, current.get(LAMP)!]]));
    expect(alone.message).toBe('Only 1 of "Product 1000" in stock: cannot order 9');
  });

  it('calls an item made inactive since it was priced not orderable rather than short', () => {
    const lines = [
      { product_id: MUG, quantity: 1 },
      { product_id: LAMP, quantity: 1 },
    ];
    const error = stockRefusal(STORE_A, lines, untakenLines(lines, LAMP), catalog);
    expect(error).toBeInstanceOf(ProductsNotOrderable);
    expect((error as ProductsNotOrderable).refused).toEqual([{ index: 1, product_id: LAMP }]);
  });
});
