import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { OutboxService, type StoreAccess } from '@app/core';
import { ProductRepository } from '../../../products/product.repository.js';
import { orderPlaced, priceOrder, stockRefusal, untakenLines, type OrderLine } from '../../order-lifecycle.js';
import { OrderCustomerNotFound, OrderForbidden } from '../../order.errors.js';
import { OrderRepository, type OrderCustomer } from '../../order.repository.js';
import { orderEventData, placedOrderDetails, toOrderView, type OrderView } from '../../order.js';
import { PlaceOrderCommand } from './place-order.command.js';

/**
 * Places an order in one transaction: prices from the catalog, stock reserved for every item or
 * none, the store's next order number, then the events of `orderPlaced` (order-lifecycle.ts).
 * Any refusal throws, and the request transaction rolls back every reservation, the number and the events.
 */
@CommandHandler(PlaceOrderCommand)
export class PlaceOrderHandler implements ICommandHandler<PlaceOrderCommand> {
  constructor(
    private readonly orders: OrderRepository,
    private readonly products: ProductRepository,
    private readonly outbox: OutboxService,
  ) {}

  async execute({ storeId, access, userId, customerId, items }: PlaceOrderCommand): Promise<OrderView> {
    const lines = items.map((item) => ({ product_id: item.product_id.toLowerCase(), quantity: item.quantity }));
    const customer = await this.customerFor(storeId, access, userId, customerId?.toLowerCase());
    const catalog = await this.productsOf(lines);
    const priced = priceOrder(storeId, lines, catalog);
    const order = await this.orders.insert(storeId, {
      customerId: customer?.id ?? null,
      total: priced.total,
      placedBy: userId,
    });
    const stored = await this.orders.insertItems(order, priced.items);
    const taken = await this.takeStock(storeId, order.id, lines);
    // What was just written, as the inserts returned it: not read back (two statements fewer per order).
    const details = placedOrderDetails(order, customer, stored);
    await this.outbox.appendAll(storeId, orderPlaced(orderEventData(details), lines, taken));
    return toOrderView(details);
  }

  /**
   * Staff (with `orders`) may name any customer of the store, or none. A customer orders for itself:
   * `customer_id` omitted or its own.
   */
  private async customerFor(
    storeId: string,
    access: StoreAccess,
    userId: string | null,
    customerId: string | undefined,
  ): Promise<OrderCustomer | null> {
    if (access.relation === 'customer') {
      if (userId === null) throw new OrderForbidden('customers_order_for_themselves');
      const own = await this.orders.findCustomerOfUser(storeId, userId);
      if (!own) throw new OrderForbidden('customer_record_missing');
      if (customerId !== undefined && customerId !== own.id) throw new OrderForbidden('customers_order_for_themselves');
      return own;
    }
    if (!access.permissions.includes('orders')) throw new OrderForbidden('orders_permission_needed');
    if (customerId === undefined) return null;
    const customer = await this.orders.findCustomer(storeId, customerId);
    if (!customer) throw new OrderCustomerNotFound();
    return customer;
  }

  /** The lines' products the caller can see, by id. */
  private async productsOf(lines: readonly OrderLine[]) {
    return new Map((await this.products.findManyVisible(lines.map((line) => line.product_id))).map((p) => [p.id, p]));
  }

  /**
   * Takes the order's stock in the database (app_take_order_stock: exactly its items, per product in
   * ascending id order so that concurrent orders cannot deadlock, never below zero). The first
   * product short of stock ends the order (409 OUT_OF_STOCK), and the rollback returns what was
   * already taken, and the order's number.
   */
  private async takeStock(storeId: string, orderId: string, lines: OrderLine[]) {
    const moves = await this.orders.takeStock(orderId);
    const failed = moves.find((move) => !move.taken);
    if (failed) {
      const untaken = untakenLines(lines, failed.product_id);
      throw stockRefusal(storeId, lines, untaken, await this.productsOf(untaken));
    }
    return moves;
  }
}
