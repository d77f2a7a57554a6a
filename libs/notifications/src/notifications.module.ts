import { Module } from '@nestjs/common';
import { StoreAccessModule } from '@app/core';
import { NotifyOutOfStockHandler } from './commands/notify-out-of-stock/notify-out-of-stock.handler.js';
import { NotificationRepository } from './notification.repository.js';
import { NotificationsController } from './notifications.controller.js';
import { NotificationQueryHandlers } from './queries/index.js';
import { StockNotificationsSaga } from './stock-notifications.saga.js';

/**
 * Merchant notifications: what the platform tells a merchant about their store. Other contexts leave
 * them through NotificationRepository (webhooks when it disables a webhook, social when a scheduled
 * post fails); the out-of-stock saga leaves one when an `inventory.updated` event takes a product's
 * stock to 0.
 */
@Module({
  imports: [StoreAccessModule],
  controllers: [NotificationsController],
  providers: [NotificationRepository, StockNotificationsSaga, NotifyOutOfStockHandler, ...NotificationQueryHandlers],
  exports: [NotificationRepository],
})
export class NotificationsModule {}
