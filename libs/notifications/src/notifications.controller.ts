import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiFunctionRoute, ApiPage, StoreScoped } from '@app/core';
import { ListNotificationsParams } from './notification.dto.js';
import { NotificationView } from './notification.repository.js';
import { ListNotificationsQuery } from './queries/list-notifications/list-notifications.query.js';

/** What the platform tells a merchant about their store (e.g. a webhook it had to disable). */
@ApiTags('webhooks')
@ApiFunctionRoute()
@Controller('functions/v1/notifications')
export class NotificationsController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @StoreScoped({ from: 'query', need: 'webhooks' })
  @ApiOperation({
    summary: "A store's merchant notifications, newest first",
    description:
      'Notices the platform leaves for the merchant. Kinds: `webhook.disabled` (a webhook was disabled after its ' +
      '5th failed delivery attempt or a `410 Gone`; `data` has `webhook_id`, `url`, `reason`, `delivery_id`); ' +
      '`social_post_failed` (a scheduled post ended with a platform failed, or was interrupted while publishing; `data` has ' +
      '`post_id` and, when the platforms answered, `failed`: `[{platform, code, message}]`); ' +
      "`inventory.out_of_stock` (an order or an adjustment took a product's stock to 0; `data` has `product_id`, " +
      '`product_name`, `reason`, `event_id`: the `inventory.updated` event). ' +
      'Staff with the `webhooks` permission, owners and admins.',
  })
  @ApiPage(NotificationView)
  async list(@Query() params: ListNotificationsParams) {
    return { success: true, ...(await this.queries.execute(new ListNotificationsQuery(params.store_id, params.limit, params.cursor))) };
  }
}
