import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import { ApiFunctionRoute, StoreScoped, Query } from '@app/core';
import { ListNotificationsParams } from './notification.dto.js';
import { ListNotificationsQuery } from './queries/list-notifications/list-notifications.query.js';
import { ApiListNotifications } from './notifications.openapi.js';

/** What the platform tells a merchant about their store (e.g. a webhook it had to disable). */
@ApiTags('webhooks')
@ApiFunctionRoute()
@Controller('functions/v1/notifications')
export class NotificationsController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @StoreScoped({ from: 'query', need: 'webhooks' })
  @ApiListNotifications()
  async list(@Query() params: ListNotificationsParams) {
    return {
      success: true,
      ...(await this.queries.execute(new ListNotificationsQuery(params.store_id, params.limit, params.cursor))),
    };
  }
}
