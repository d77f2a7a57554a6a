import { HttpStatus } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ApiError, OutboxService, type StoreEventOf } from '@app/core';
import type { InventoryEventData } from '../../../events/commerce-events.js';
import { allowedTransitions, canTransition, eventFor } from '../../order-status.js';
import { OrderRepository } from '../../order.repository.js';
import { orderEventData, toOrderView, type OrderRow, type OrderView } from '../../order.js';
import { ChangeOrderStatusCommand } from './change-order-status.command.js';

/**
 * Moves an order along the status machine (order-status.ts). The order row is locked first, so
 * concurrent moves of one order run one after the other and each sees the status the previous left.
 * Fires `order.updated` and the specific event, both with the order after the change; cancelling
 * also restocks (one `inventory.updated` per product). A refund does not restock: whether refunded
 * goods come back to stock is the merchant's call, through POST /products/{id}/inventory.
 */
@CommandHandler(ChangeOrderStatusCommand)
export class ChangeOrderStatusHandler implements ICommandHandler<ChangeOrderStatusCommand> {
  constructor(
    private readonly orders: OrderRepository,
    private readonly outbox: OutboxService,
  ) {}

  async execute({ orderId, access, status }: ChangeOrderStatusCommand): Promise<OrderView> {
    const order = (await this.orders.findForUpdate(orderId)) ?? (access.relation === 'customer' ? await this.orders.find(orderId) : null);
    if (!order) throw ApiError.notFound('Order');
    if (access.relation === 'customer') {
      if (status !== 'cancelled') throw ApiError.forbidden('Customers may only cancel their orders');
      if (order.status !== 'pending')
        throw ApiError.forbidden(`Only a pending order can be cancelled by the customer; this one is ${order.status}`);
    }
    if (!canTransition(order.status, status)) {
      const allowed = allowedTransitions(order.status);
      throw new ApiError(
        HttpStatus.CONFLICT,
        'INVALID_TRANSITION',
        `An order cannot move from ${order.status} to ${status}` +
          (allowed.length ? ` (allowed: ${allowed.join(', ')})` : `: ${order.status} is final`),
        { from: order.status, to: status, allowed: [...allowed] },
      );
    }
    await this.orders.updateStatus(orderId, status);
    const restocked = status === 'cancelled' ? await this.restock(order) : [];

    const details = (await this.orders.findDetails(orderId))!;
    const data = orderEventData(details);
    await this.outbox.appendAll(order.store_id, [
      { event: 'order.updated', data },
      { event: eventFor(status)!, data },
      ...restocked.map((move): StoreEventOf<'inventory.updated'> => ({ event: 'inventory.updated', data: move })),
    ]);
    return toOrderView(details);
  }

  /**
   * Puts the items back in stock in the database (app_return_order_stock: exactly this order's
   * items, once, in ascending product id order as orders take them). Items whose product was deleted
   * since (product_id null) are skipped; inactive products are restocked too.
   */
  private async restock(order: OrderRow): Promise<InventoryEventData[]> {
    return (await this.orders.returnStock(order.id)).map((move) => ({
      product_id: move.product_id,
      previous_quantity: move.previous_quantity,
      quantity: move.quantity,
      delta: move.delta,
      reason: `order ${order.order_number} cancelled`,
    }));
  }
}
