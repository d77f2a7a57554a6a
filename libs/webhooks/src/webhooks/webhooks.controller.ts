import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBody, ApiExtraModels, ApiOperation, ApiParam, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { ApiEnvelope, ApiFunctionRoute, ApiPage, StoreScoped } from '@app/core';
import { DeleteWebhookCommand } from './commands/delete-webhook/delete-webhook.command.js';
import { RegisterWebhookCommand } from './commands/register-webhook/register-webhook.command.js';
import { RotateWebhookSecretCommand } from './commands/rotate-webhook-secret/rotate-webhook-secret.command.js';
import { UpdateWebhookCommand } from './commands/update-webhook/update-webhook.command.js';
import { GetWebhookQuery } from './queries/get-webhook/get-webhook.query.js';
import { ListWebhooksQuery } from './queries/list-webhooks/list-webhooks.query.js';
import { storeEventCallbacks } from '../events/store-event-openapi.js';
import { SECRET_EXAMPLE, WEBHOOK_DELETED_MESSAGE } from './webhook-api.constants.js';
import { ListWebhooksParams, RegisterWebhookDto, UpdateWebhookDto } from './webhook.dto.js';
import { WEBHOOK_EXAMPLE, WebhookView } from './webhook.js';
import '../store-resources.js'; // registers the store resource its routes name (webhook) before they are declared

/** A secret answered in full, this once. */
const SECRET = {
  type: 'string',
  description: 'The whole signing secret (`whsec_` + 32 random bytes in base64): answered this once, never again',
  example: SECRET_EXAMPLE,
} as const;

const SECRET_RULES =
  'The secret is stored encrypted (AES-256-GCM) and never answered again: webhook objects carry only `secret_hint` ' +
  '(its kind and last four characters).';

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
  @ApiOperation({
    summary: 'Register a webhook',
    description:
      "Subscribes a URL to some of the store's events; each event is POSTed to it as a signed envelope " +
      '`{id, event, created_at, store_id, data}` (headers `X-Service-Signature`, `webhook-signature`, …). ' +
      'Leave `secret` out to have one generated: the answer then carries it in full in `secret`, this once. ' +
      `A supplied secret is not echoed. ${SECRET_RULES} What the webhook then receives: the callback \`storeEvent\`.`,
    callbacks: storeEventCallbacks(),
  })
  @ApiBody({
    type: RegisterWebhookDto,
    examples: {
      generated: {
        summary: 'The server generates the secret',
        value: { store_id: WEBHOOK_EXAMPLE.store_id, url: WEBHOOK_EXAMPLE.url, events: WEBHOOK_EXAMPLE.events },
      },
      supplied: {
        summary: 'The merchant supplies the secret',
        value: {
          store_id: WEBHOOK_EXAMPLE.store_id,
          url: WEBHOOK_EXAMPLE.url,
          events: ['product.created'],
          secret: 'my-shared-secret-1234',
        },
      },
    },
  })
  // `secret` is left out when the merchant supplied one, so the schema is written here (ApiEnvelope makes every field required).
  @ApiExtraModels(WebhookView)
  @ApiResponse({
    status: 201,
    description: 'Created; `secret` only when the server generated it',
    schema: {
      type: 'object',
      required: ['success', 'webhook'],
      properties: {
        success: { type: 'boolean', enum: [true], description: 'Always `true` on a 2xx answer' },
        webhook: { $ref: getSchemaPath(WebhookView) },
        secret: { ...SECRET, description: `${SECRET.description}; only when the request had no \`secret\`` },
      },
    },
  })
  async register(@Body() body: RegisterWebhookDto) {
    const { webhook, generatedSecret } = await this.commands.execute(
      new RegisterWebhookCommand(body.store_id, body.url, body.events, body.secret ?? null),
    );
    return generatedSecret === null ? { success: true, webhook } : { success: true, webhook, secret: generatedSecret };
  }

  @Get()
  @StoreScoped({ from: 'query', need: 'webhooks' })
  @ApiOperation({ summary: "A store's webhooks, newest first", description: `Paginated with \`limit\` and \`cursor\`. ${SECRET_RULES}` })
  @ApiPage(WebhookView)
  async list(@Query() params: ListWebhooksParams) {
    return { success: true, ...(await this.queries.execute(new ListWebhooksQuery(params.store_id, params.limit, params.cursor))) };
  }

  @Get(':webhook_id')
  @ApiParam({ name: 'webhook_id', format: 'uuid' })
  @StoreScoped({ from: 'webhook', need: 'webhooks' })
  @ApiOperation({ summary: 'One webhook', description: SECRET_RULES })
  @ApiEnvelope(200, { webhook: WebhookView })
  async get(@Param('webhook_id') webhookId: string) {
    return { success: true, webhook: await this.queries.execute(new GetWebhookQuery(webhookId)) };
  }

  @Patch(':webhook_id')
  @ApiParam({ name: 'webhook_id', format: 'uuid' })
  @StoreScoped({ from: 'webhook', need: 'webhooks' })
  @ApiOperation({
    summary: 'Change, disable or re-enable a webhook',
    description:
      'Any of `url` (checked again), `events` (replaces the list), `secret` (replaces the secret at once, no overlap; ' +
      'use `rotate-secret` for a 24 h overlap) and `status`. `status: "disabled"` stops deliveries and cancels pending ones; ' +
      '`status: "active"` re-enables a webhook (also one disabled after failed deliveries) and clears `disabled_reason`; ' +
      'events from then on are delivered, and `recover` re-sends what failed meanwhile. An empty body changes nothing. ' +
      SECRET_RULES,
  })
  @ApiBody({
    type: UpdateWebhookDto,
    examples: {
      reEnable: { summary: 'Re-enable after the receiver is fixed', value: { status: 'active' } },
      change: { summary: 'Move and resubscribe', value: { url: 'https://merchant.example/hooks/v2', events: ['order.paid'] } },
    },
  })
  @ApiEnvelope(200, { webhook: WebhookView })
  async update(@Param('webhook_id') webhookId: string, @Body() body: UpdateWebhookDto) {
    const changes = { url: body.url, events: body.events, secret: body.secret, status: body.status };
    return { success: true, webhook: await this.commands.execute(new UpdateWebhookCommand(webhookId, changes)) };
  }

  @Delete(':webhook_id')
  @ApiParam({ name: 'webhook_id', format: 'uuid' })
  @StoreScoped({ from: 'webhook', need: 'webhooks' })
  @ApiOperation({
    summary: 'Delete a webhook',
    description: 'Deletes the webhook and its delivery log; attempts still queued are dropped.',
  })
  @ApiEnvelope(200, { message: { type: 'string', example: WEBHOOK_DELETED_MESSAGE } })
  async remove(@Param('webhook_id') webhookId: string) {
    await this.commands.execute(new DeleteWebhookCommand(webhookId));
    return { success: true, message: WEBHOOK_DELETED_MESSAGE };
  }

  @Post(':webhook_id/rotate-secret')
  @HttpCode(200)
  @ApiParam({ name: 'webhook_id', format: 'uuid' })
  @StoreScoped({ from: 'webhook', need: 'webhooks' })
  @ApiOperation({
    summary: "Rotate a webhook's signing secret",
    description:
      'Generates a new `whsec_` secret (32 random bytes, base64) and answers it in full, this once. For 24 hours the old ' +
      'secret keeps signing too: `webhook-signature` carries one `v1,` entry per secret, so a receiver verifies with either ' +
      'while it switches; `X-Service-Signature` uses the new secret. Rotating again within the 24 hours retires the older one.',
  })
  @ApiEnvelope(200, { webhook: WebhookView, secret: SECRET })
  async rotate(@Param('webhook_id') webhookId: string) {
    return { success: true, ...(await this.commands.execute(new RotateWebhookSecretCommand(webhookId))) };
  }
}
