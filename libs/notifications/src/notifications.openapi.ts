import { applyDecorators } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { ApiPage } from '@app/core';
import { NotificationView } from './notification.repository.js';

/** GET /functions/v1/notifications */
export const ApiListNotifications = () =>
  applyDecorators(
    ApiOperation({
      summary: "A store's merchant notifications, newest first",
      description:
        'Notices the platform leaves for the merchant. Kinds: `webhook.disabled` (a webhook was disabled after ' +
        'its 5th failed delivery attempt or a `410 Gone`; `data` has `webhook_id`, `url`, `reason`, ' +
        '`delivery_id`); `social_post_failed` (a scheduled post ended with a platform failed, or was interrupted ' +
        'while publishing; `data` has `post_id` and, when the platforms answered, `failed`: `[{platform, code, ' +
        "message}]`); `inventory.out_of_stock` (an order or an adjustment took a product's stock to 0; `data` has " +
        '`product_id`, `product_name`, `reason`, `event_id`: the `inventory.updated` event). Staff with the ' +
        '`webhooks` permission, owners and admins.',
    }),
    ApiPage(NotificationView),
  );
