import { Query } from '@nestjs/cqrs';
import type { Page } from '@app/core';
import type { NotificationView } from '../../notification.repository.js';

export class ListNotificationsQuery extends Query<Page<NotificationView>> {
  constructor(
    readonly storeId: string,
    readonly limit: number,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}
