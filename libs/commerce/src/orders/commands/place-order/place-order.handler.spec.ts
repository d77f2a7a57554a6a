import { InMemoryShop, product, RecordingOutbox } from '../../../testing/in-memory-orders.js';
import {
  callerFacts,
  grantedAccess,
  judgeStoreAccess,
  refusal,
  STORE_A,
  STORE_B,
} from '../../../testing/store-access.js';
import { OrdersController } from '../../orders.controller.js';
import { PlaceOrderCommand } from './place-order.command.js';
import { PlaceOrderHandler } from './place-order.handler.js';

const MUG = '10000000-0000-4000-8000-000000000001';
const TOTE = '10000000-0000-4000-8000-000000000002';
const DRAFT = '10000000-0000-4000-8000-000000000003';
const OTHER_STORES = '10000000-0000-4000-8000-000000000004';
const GRACE = '20000000-0000-4000-8000-000000000001';
const ALAN = '20000000-0000-4000-8000-000000000002';
const BARBARA_OF_B = '20000000-0000-4000-8000-000000000003';

const route = OrdersController.prototype.place;

/** A request's access as the route's own guard rule resolves it for these caller facts. */
const staff = (permissions: string[] | null, relation: 'member' | 'owner' | 'admin' = 'member') =>
  grantedAccess(
    route,
    callerFacts({
      userId: 'staff-user',
      relation,
      permissions,
      role: relation === 'member' ? 'team_member' : 'merchant',
    }),
  );
const customer = (userId: string) =>
  grantedAccess(route, callerFacts({ userId, relation: 'customer', role: 'customer', permissions: null }));

describe('PlaceOrderHandler: who may place an order, and for whom', () => {
  let shop: InMemoryShop;
  let outbox: RecordingOutbox;
  let handler: PlaceOrderHandler;

  beforeEach(() => {
    shop = new InMemoryShop({
      products: [
        product({ id: MUG, store_id: STORE_A, name: 'Mug', price: '12.50', inventory_quantity: 10 }),
        product({ id: TOTE, store_id: STORE_A, name: 'Tote', price: '3.00', inventory_quantity: 2 }),
        product({ id: DRAFT, store_id: STORE_A, status: 'draft' }),
        product({ id: OTHER_STORES, store_id: STORE_B }),
      ],
      customers: [
        { id: GRACE, store_id: STORE_A, user_id: 'grace-user', name: 'Grace', email: 'grace@example.com' },
        { id: ALAN, store_id: STORE_A, user_id: 'alan-user', name: 'Alan', email: 'alan@example.com' },
        { id: BARBARA_OF_B, store_id: STORE_B, user_id: 'barbara-user', name: 'Barbara', email: 'barbara@example.com' },
      ],
    });
    outbox = new RecordingOutbox();
    handler = new PlaceOrderHandler(shop.asOrders, shop.asProducts, outbox.asOutbox);
  });

  const run = (
    access: ReturnType<typeof staff>,
    userId: string,
    customerId: string | undefined,
    items = [{ product_id: MUG, quantity: 2 }],
  ) => handler.execute(new PlaceOrderCommand(STORE_A, access, userId, customerId, items));

  /** Nothing was written: no order, no stock moved, no event. */
  function expectNothingWritten() {
    expect(shop.orders.size).toBe(0);
    expect(shop.products.get(MUG)!.inventory_quantity).toBe(10);
    expect(outbox.events).toEqual([]);
  }

  it("hides another store from its customers: the route's guard answers 404 before any handler runs", () => {
    // Barbara is a customer of store B: the lookup finds no relation of hers to store A.
    const verdict = judgeStoreAccess(
      route,
      callerFacts({ userId: 'barbara-user', role: 'customer', relation: null, storeId: null }),
    );
    expect(verdict.outcome).toBe('NOT_FOUND');
  });

  it('lets staff with `orders` place an order for a customer of the store, priced from the catalog', async () => {
    const order = await run(staff(['orders']), 'staff-user', GRACE, [
      { product_id: MUG, quantity: 2 },
      { product_id: TOTE, quantity: 1 },
    ]);
    expect(order).toMatchObject({ store_id: STORE_A, order_number: '1001', status: 'pending', total: 28 });
    expect(order.customer).toEqual({ id: GRACE, name: 'Grace', email: 'grace@example.com' });
    expect(shop.products.get(MUG)!.inventory_quantity).toBe(8);
    expect(shop.products.get(TOTE)!.inventory_quantity).toBe(1);
    expect(outbox.kinds()).toEqual(['order.created', 'inventory.updated', 'inventory.updated']);
    expect(outbox.events.every((entry) => entry.storeId === STORE_A)).toBe(true);
  });

  it('lets the owner place an order without a customer', async () => {
    const order = await run(staff(null, 'owner'), 'staff-user', undefined);
    expect(order.customer).toBeNull();
    expect(order.total).toBe(25);
  });

  it('refuses a member without the `orders` permission (403), writing nothing', async () => {
    const error = await refusal(run(staff(['catalog', 'customers']), 'staff-user', undefined));
    expect(error.code).toBe('FORBIDDEN');
    expect(error.getStatus()).toBe(403);
    expect(error.message).toContain('"orders" permission');
    expectNothingWritten();
  });

  it('refuses staff naming a customer of another store as if it did not exist (404)', async () => {
    const error = await refusal(run(staff(['orders']), 'staff-user', BARBARA_OF_B));
    expect(error.code).toBe('NOT_FOUND');
    expectNothingWritten();
  });

  it('places a customer’s order for its own record, whether it names itself or not', async () => {
    const implicit = await run(customer('grace-user'), 'grace-user', undefined);
    expect(implicit.customer?.id).toBe(GRACE);
    const explicit = await run(customer('grace-user'), 'grace-user', GRACE.toUpperCase());
    expect(explicit.customer?.id).toBe(GRACE);
    expect(explicit.order_number).toBe('1002');
  });

  it("refuses a customer placing an order in another customer's name (403), writing nothing", async () => {
    const error = await refusal(run(customer('grace-user'), 'grace-user', ALAN));
    expect(error.code).toBe('FORBIDDEN');
    expect(error.message).toBe('Customers place orders for themselves only');
    expectNothingWritten();
  });

  it('refuses a customer who has no customer record in this store (403)', async () => {
    const error = await refusal(run(customer('barbara-user'), 'barbara-user', undefined));
    expect(error.code).toBe('FORBIDDEN');
    expectNothingWritten();
  });

  it("refuses products that are not the store's active products (422), naming each item", async () => {
    const error = await refusal(
      run(staff(['orders']), 'staff-user', undefined, [
        { product_id: MUG, quantity: 1 },
        { product_id: DRAFT, quantity: 1 },
        { product_id: OTHER_STORES, quantity: 1 },
      ]),
    );
    expect(error.code).toBe('UNPROCESSABLE');
    expect((error.details as { field: string }[]).map((item) => item.field)).toEqual([
      'items.1.product_id',
      'items.2.product_id',
    ]);
    expectNothingWritten();
  });

  it(
    'refuses an item short of stock (409 OUT_OF_STOCK) with ' + 'what was asked and what is left, and appends no event',
    async () => {
      const error = await refusal(run(staff(['orders']), 'staff-user', undefined, [{ product_id: TOTE, quantity: 3 }]));
      expect(error.code).toBe('OUT_OF_STOCK');
      expect(error.getStatus()).toBe(409);
      expect(error.details).toEqual([{ product_id: TOTE, requested: 3, available: 2 }]);
      expect(outbox.events).toEqual([]);
    },
  );
});
