import { Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import { ApiFunctionRoute, StoreScoped, Body, Query } from '@app/core';
import { DeleteWebhookCommand } from './commands/delete-webhook/delete-webhook.command.js';
import { RegisterWebhookCommand } from './commands/register-webhook/register-webhook.command.js';
import { RotateWebhookSecretCommand } from './commands/rotate-webhook-secret/rotate-webhook-secret.command.js';
import { UpdateWebhookCommand } from './commands/update-webhook/update-webhook.command.js';
import { GetWebhookQuery } from './queries/get-webhook/get-webhook.query.js';
import { ListWebhooksQuery } from './queries/list-webhooks/list-webhooks.query.js';
import { WEBHOOK_DELETED_MESSAGE } from './webhook-api.constants.js';
import { ListWebhooksParams, RegisterWebhookDto, UpdateWebhookDto } from './webhook.dto.js';
import {
  ApiRegisterWebhook,
  ApiListWebhooks,
  ApiGetWebhook,
  ApiUpdateWebhook,
  ApiDeleteWebhook,
  ApiRotateWebhookSecret,
} from './webhooks.openapi.js';
import '../store-resources.js'; // registers the store resource its routes name (webhook) before they are declared

/**
 * Webhook registration and management. Staff with the `webhooks` permission, owners and
 * admins; another tenant's webhook answers 404 "Webhook not found".
 */
@ApiTags('webhooks')
@ApiFunctionRoute()
@Controller('functions/v1/webhooks')
export class WebhooksController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Post('register')
  @HttpCode(201)
  @StoreScoped({ from: 'body', need: 'webhooks' })
  @ApiRegisterWebhook()
  async register(@Body() body: RegisterWebhookDto) {
    const { webhook, generatedSecret } = await this.commands.execute(
      new RegisterWebhookCommand(body.store_id, body.url, body.events, body.secret ?? null),
    );
    return generatedSecret === null ? { success: true, webhook } : { success: true, webhook, secret: generatedSecret };
  }

  @Get()
  @StoreScoped({ from: 'query', need: 'webhooks' })
  @ApiListWebhooks()
  async list(@Query() params: ListWebhooksParams) {
    return {
      success: true,
      ...(await this.queries.execute(new ListWebhooksQuery(params.store_id, params.limit, params.cursor))),
    };
  }

  @Get(':webhook_id')
  @StoreScoped({ from: 'webhook', need: 'webhooks' })
  @ApiGetWebhook()
  async get(@Param('webhook_id') webhookId: string) {
    return { success: true, webhook: await this.queries.execute(new GetWebhookQuery(webhookId)) };
  }

  @Patch(':webhook_id')
  @StoreScoped({ from: 'webhook', need: 'webhooks' })
  @ApiUpdateWebhook()
  async update(@Param('webhook_id') webhookId: string, @Body() body: UpdateWebhookDto) {
    const changes = { url: body.url, events: body.events, secret: body.secret, status: body.status };
    return { success: true, webhook: await this.commands.execute(new UpdateWebhookCommand(webhookId, changes)) };
  }

  @Delete(':webhook_id')
  @StoreScoped({ from: 'webhook', need: 'webhooks' })
  @ApiDeleteWebhook()
  async remove(@Param('webhook_id') webhookId: string) {
    await this.commands.execute(new DeleteWebhookCommand(webhookId));
    return { success: true, message: WEBHOOK_DELETED_MESSAGE };
  }

  @Post(':webhook_id/rotate-secret')
  @HttpCode(200)
  @StoreScoped({ from: 'webhook', need: 'webhooks' })
  @ApiRotateWebhookSecret()
  async rotate(@Param('webhook_id') webhookId: string) {
    return { success: true, ...(await this.commands.execute(new RotateWebhookSecretCommand(webhookId))) };
  }
}
