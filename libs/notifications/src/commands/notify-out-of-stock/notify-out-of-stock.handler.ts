import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { StoreEventSubscribers } from '@app/core';
import { NotificationRepository } from '../../notification.repository.js';
import { STOCK_NOTIFICATIONS } from '../../stock-notifications.saga.js';
import { NotifyOutOfStockCommand } from './notify-out-of-stock.command.js';

/**
 * One `inventory.out_of_stock` notification per event that took a product's stock from above 0 to 0,
 * and the acknowledgement of the batch's publications, in one statement: a republished event finds
 * its publication acknowledged and notifies nobody twice.
 */
@CommandHandler(NotifyOutOfStockCommand)
export class NotifyOutOfStockHandler implements ICommandHandler<NotifyOutOfStockCommand> {
  constructor(
    private readonly notifications: NotificationRepository,
    private readonly subscribers: StoreEventSubscribers,
  ) {}

  execute({ envelopes, publications }: NotifyOutOfStockCommand): Promise<number> {
    const soldOut = envelopes.filter(({ data }) => data.quantity === 0 && data.previous_quantity > 0);
    return this.subscribers.handle(() =>
      this.notifications.addOutOfStock(
        STOCK_NOTIFICATIONS.name,
        publications,
        soldOut.map(({ id, store_id: storeId, data }) => ({
          event_id: id,
          store_id: storeId,
          product_id: data.product_id,
          reason: data.reason,
        })),
      ),
    );
  }
}
