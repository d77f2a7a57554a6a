import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { OutboxService } from '@app/core';
import { moveOrder } from '../../order-lifecycle.js';
import { OrderNotFound } from '../../order.errors.js';
import { OrderRepository } from '../../order.repository.js';
import { orderEventData, toOrderView, type OrderView } from '../../order.js';
import { ChangeOrderStatusCommand } from './change-order-status.command.js';

/**
 * Moves an order along the status machine (`moveOrder`, order-lifecycle.ts, decides and names the
 * events). The order row is locked first, so concurrent moves of one order run one after the other
 * and each sees the status the previous left. Cancelling also restocks (one `inventory.updated` per
 * product). A refund does not restock: whether refunded goods come back to stock is the merchant's
 * call, through POST /products/{id}/inventory.
 */
@CommandHandler(ChangeOrderStatusCommand)
export class ChangeOrderStatusHandler implements ICommandHandler<ChangeOrderStatusCommand> {
  constructor(
    private readonly orders: OrderRepository,
    private readonly outbox: OutboxService,
  ) {}

  async execute({ orderId, access, status }: ChangeOrderStatusCommand): Promise<OrderView> {
    const byCustomer = access.relation === 'customer';
    // Row-level security lets a customer lock only its own pending order; its others are read to say why not.
    const order = (await this.orders.findForUpdate(orderId)) ?? (byCustomer ? await this.orders.find(orderId) : null);
    if (!order) throw new OrderNotFound();
    const move = moveOrder(order, status, byCustomer ? 'customer' : 'staff');
    await this.orders.updateStatus(orderId, move.to);
    // app_return_order_stock: exactly this order's items, once, in ascending product id order as orders
    // take them; items whose product was deleted since are skipped, inactive products are restocked too.
    const returned = move.restocks ? await this.orders.returnStock(orderId) : [];
    const details = (await this.orders.findDetails(orderId))!;
    await this.outbox.appendAll(order.store_id, move.events(orderEventData(details), returned));
    return toOrderView(details);
  }
}
