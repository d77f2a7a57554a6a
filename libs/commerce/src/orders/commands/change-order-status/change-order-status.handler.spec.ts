import type { OrderStatus } from '../../order-status.js';
import { InMemoryShop, product, RecordingOutbox } from '../../../testing/in-memory-orders.js';
import { callerFacts, grantedAccess, judgeStoreAccess, refusal, STORE_A } from '../../../testing/store-access.js';
import { OrdersController } from '../../orders.controller.js';
import { ChangeOrderStatusCommand } from './change-order-status.command.js';
import { ChangeOrderStatusHandler } from './change-order-status.handler.js';

const MUG = '10000000-0000-4000-8000-000000000001';
const GRACE = '20000000-0000-4000-8000-000000000001';
const route = OrdersController.prototype.changeStatus;

/** The facts the caller lookup gives for an order: its store, and the user its customer belongs to. */
const onOrder = (orderId: string) => ({ params: { order_id: orderId } });
const staffFacts = (permissions: string[]) =>
  callerFacts({ userId: 'staff-user', permissions, recordOwner: 'grace-user' });
const graceFacts = callerFacts({
  userId: 'grace-user',
  role: 'customer',
  relation: 'customer',
  permissions: null,
  recordOwner: 'grace-user',
});

describe('ChangeOrderStatusHandler: who may move an order, and where to', () => {
  let shop: InMemoryShop;
  let outbox: RecordingOutbox;
  let handler: ChangeOrderStatusHandler;

  beforeEach(() => {
    shop = new InMemoryShop({
      products: [product({ id: MUG, store_id: STORE_A, inventory_quantity: 7 })],
      customers: [{ id: GRACE, store_id: STORE_A, user_id: 'grace-user', name: 'Grace', email: 'grace@example.com' }],
    });
    outbox = new RecordingOutbox();
    handler = new ChangeOrderStatusHandler(shop.asOrders, outbox.asOutbox);
  });

  const orderOf = (status: OrderStatus) =>
    shop.seedOrder({ store_id: STORE_A, status, customer_id: GRACE, items: [{ product_id: MUG, quantity: 3 }] });
  /** Row-level security lets a customer lock only its own pending order. */
  const asCustomer = () => (shop.lockable = (order) => order.status === 'pending');

  it(
    'refuses a member without the `orders` permission at the ' +
      'route (403) and hides the order from other customers (404)',
    () => {
      const order = orderOf('pending');
      expect(judgeStoreAccess(route, staffFacts(['catalog', 'customers']), onOrder(order.id)).outcome).toBe(
        'FORBIDDEN',
      );
      expect(judgeStoreAccess(route, staffFacts(['orders']), onOrder(order.id)).outcome).toBe('allowed');
      const alan = callerFacts({
        userId: 'alan-user',
        role: 'customer',
        relation: 'customer',
        permissions: null,
        recordOwner: 'grace-user',
      });
      expect(judgeStoreAccess(route, alan, onOrder(order.id)).outcome).toBe('NOT_FOUND');
      expect(judgeStoreAccess(route, graceFacts, onOrder(order.id)).outcome).toBe('allowed');
    },
  );

  it('lets staff with `orders` make an allowed move, firing order.updated and the specific event', async () => {
    const order = orderOf('pending');
    const moved = await handler.execute(
      new ChangeOrderStatusCommand(order.id, grantedAccess(route, staffFacts(['orders']), onOrder(order.id)), 'paid'),
    );
    expect(moved.status).toBe('paid');
    expect(shop.orders.get(order.id)!.status).toBe('paid');
    expect(outbox.kinds()).toEqual(['order.updated', 'order.paid']);
    expect(outbox.events[0].data).toMatchObject({ order_id: order.id, status: 'paid' });
  });

  it(
    'refuses a move the status machine does not allow (409 ' +
      'INVALID_TRANSITION with from, to and allowed), changing nothing',
    async () => {
      const order = orderOf('pending');
      const access = grantedAccess(route, staffFacts(['orders']), onOrder(order.id));
      const error = await refusal(handler.execute(new ChangeOrderStatusCommand(order.id, access, 'shipped')));
      expect(error.code).toBe('INVALID_TRANSITION');
      expect(error.details).toEqual({ from: 'pending', to: 'shipped', allowed: ['paid', 'cancelled'] });
      const final = await refusal(
        handler.execute(new ChangeOrderStatusCommand(orderOf('refunded').id, access, 'paid')),
      );
      expect(final.details).toEqual({ from: 'refunded', to: 'paid', allowed: [] });
      expect(shop.statusWrites).toEqual([]);
      expect(outbox.events).toEqual([]);
    },
  );

  it('lets a customer cancel its own pending order, putting the items back in stock', async () => {
    asCustomer();
    const order = orderOf('pending');
    const cancelled = await handler.execute(
      new ChangeOrderStatusCommand(order.id, grantedAccess(route, graceFacts, onOrder(order.id)), 'cancelled'),
    );
    expect(cancelled.status).toBe('cancelled');
    expect(shop.products.get(MUG)!.inventory_quantity).toBe(10);
    expect(outbox.kinds()).toEqual(['order.updated', 'order.cancelled', 'inventory.updated']);
    expect(outbox.events[2].data).toMatchObject({ product_id: MUG, previous_quantity: 7, quantity: 10, delta: 3 });
  });

  it('refuses a customer any move but cancelling (403), even an allowed one', async () => {
    asCustomer();
    const order = orderOf('pending');
    const error = await refusal(
      handler.execute(
        new ChangeOrderStatusCommand(order.id, grantedAccess(route, graceFacts, onOrder(order.id)), 'paid'),
      ),
    );
    expect(error.code).toBe('FORBIDDEN');
    expect(error.message).toBe('Customers may only cancel their orders');
    expect(shop.statusWrites).toEqual([]);
  });

  it('refuses a customer cancelling its order once it is no longer pending (403), though staff could', async () => {
    asCustomer();
    const order = orderOf('paid');
    const error = await refusal(
      handler.execute(
        new ChangeOrderStatusCommand(order.id, grantedAccess(route, graceFacts, onOrder(order.id)), 'cancelled'),
      ),
    );
    expect(error.code).toBe('FORBIDDEN');
    expect(error.message).toContain('this one is paid');
    expect(shop.statusWrites).toEqual([]);
    expect(shop.products.get(MUG)!.inventory_quantity).toBe(7);
    expect(outbox.events).toEqual([]);
  });

  it('answers 404 for an order the caller cannot see', async () => {
    const unknown = '00000000-0000-4000-8000-00000000ffff';
    const access = grantedAccess(route, staffFacts(['orders']), onOrder(unknown));
    const error = await refusal(handler.execute(new ChangeOrderStatusCommand(unknown, access, 'paid')));
    expect(error.code).toBe('NOT_FOUND');
  });
});
