import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Saga, type ICommand, type IEvent } from '@nestjs/cqrs';
import { map, type Observable } from 'rxjs';
import { StoreEventSubscribers, storeEventsFor, type AcknowledgingSubscriber } from '@app/core';
import { NotifyOutOfStockCommand } from './commands/notify-out-of-stock/notify-out-of-stock.command.js';

/** Merchant notifications as an acknowledging subscriber: it reads `inventory.updated` only. */
export const STOCK_NOTIFICATIONS: AcknowledgingSubscriber<'inventory.updated'> = {
  name: 'notifications',
  events: ['inventory.updated'],
};

/**
 * Maps each batch of `inventory.updated` events to one `NotifyOutOfStockCommand` (acknowledged like the webhook
 * dispatch).
 */
@Injectable()
export class StockNotificationsSaga implements OnModuleInit {
  constructor(private readonly subscribers: StoreEventSubscribers) {}

  onModuleInit(): void {
    this.subscribers.register(STOCK_NOTIFICATIONS);
  }

  @Saga()
  outOfStock = (events$: Observable<IEvent>): Observable<ICommand> =>
    events$.pipe(
      storeEventsFor(STOCK_NOTIFICATIONS),
      map(({ envelopes, publications }) => new NotifyOutOfStockCommand(envelopes, publications)),
    );
}
