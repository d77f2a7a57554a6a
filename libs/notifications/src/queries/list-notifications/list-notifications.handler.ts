import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { decodeCursor, toPage, type Page } from '@app/core';
import { NotificationRepository, toNotificationView, type NotificationView } from '../../notification.repository.js';
import { ListNotificationsQuery } from './list-notifications.query.js';

/** A store's merchant notifications, newest first. */
@QueryHandler(ListNotificationsQuery)
export class ListNotificationsHandler implements IQueryHandler<ListNotificationsQuery> {
  constructor(private readonly notifications: NotificationRepository) {}

  async execute({ storeId, limit, cursor }: ListNotificationsQuery): Promise<Page<NotificationView>> {
    return toPage(
      await this.notifications.pageOfStore(storeId, limit, decodeCursor(cursor)),
      limit,
      toNotificationView,
    );
  }
}
