import { Controller, Get, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiError, ApiFunctionRoute, StoreScoped, Body, Query } from '@app/core';
import { RecoverDeliveriesCommand } from './commands/recover-deliveries/recover-deliveries.command.js';
import { RedeliverDeliveryCommand } from './commands/redeliver-delivery/redeliver-delivery.command.js';
import { SendTestEventCommand } from './commands/send-test-event/send-test-event.command.js';
import { ListDeliveriesQuery } from './queries/list-deliveries/list-deliveries.query.js';
import { ListDeliveriesParams, RecoverDeliveriesDto } from './webhook.dto.js';
import {
  ApiListDeliveries,
  ApiSendTestDelivery,
  ApiRedeliver,
  ApiRecoverDeliveries,
} from './webhook-deliveries.openapi.js';
import '../store-resources.js'; // registers the store resource its routes name (webhook) before they are declared

const deliveryId = new ParseUUIDPipe({
  exceptionFactory: () => ApiError.validation([{ field: 'delivery_id', message: 'delivery_id must be a UUID' }]),
});

/** The delivery log of a webhook, test events, redelivery and recovery. */
@ApiTags('webhooks')
@ApiFunctionRoute()
@ApiParam({ name: 'webhook_id', format: 'uuid' })
@Controller('functions/v1/webhooks/:webhook_id')
export class WebhookDeliveriesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Get('deliveries')
  @StoreScoped({ from: 'webhook', need: 'webhooks' })
  @ApiListDeliveries()
  async list(@Param('webhook_id') webhookId: string, @Query() params: ListDeliveriesParams) {
    return {
      success: true,
      ...(await this.queries.execute(new ListDeliveriesQuery(webhookId, params.status, params.limit, params.cursor))),
    };
  }

  @Post('test')
  @HttpCode(201)
  @StoreScoped({ from: 'webhook', need: 'webhooks' })
  @ApiSendTestDelivery()
  async test(@Param('webhook_id') webhookId: string) {
    return { success: true, delivery: await this.commands.execute(new SendTestEventCommand(webhookId)) };
  }

  @Post('deliveries/:delivery_id/redeliver')
  @HttpCode(201)
  @StoreScoped({ from: 'webhook', need: 'webhooks' })
  @ApiRedeliver()
  async redeliver(@Param('webhook_id') webhookId: string, @Param('delivery_id', deliveryId) id: string) {
    return { success: true, delivery: await this.commands.execute(new RedeliverDeliveryCommand(webhookId, id)) };
  }

  @Post('recover')
  @HttpCode(200)
  @StoreScoped({ from: 'webhook', need: 'webhooks' })
  @ApiRecoverDeliveries()
  async recover(@Param('webhook_id') webhookId: string, @Body() body: RecoverDeliveriesDto) {
    return {
      success: true,
      ...(await this.commands.execute(new RecoverDeliveriesCommand(webhookId, new Date(body.since)))),
    };
  }
}
