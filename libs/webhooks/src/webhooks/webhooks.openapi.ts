import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOperation, ApiParam, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { ApiEnvelope, ApiPage } from '@app/core';
import { storeEventCallbacks } from '../events/store-event-openapi.js';
import { SECRET_EXAMPLE, WEBHOOK_DELETED_MESSAGE } from './webhook-api.constants.js';
import { RegisterWebhookDto, UpdateWebhookDto } from './webhook.dto.js';
import { WEBHOOK_EXAMPLE, WebhookView } from './webhook.js';

/** A secret answered in full, this once. */
const SECRET = {
  type: 'string',
  description: 'The whole signing secret (`whsec_` + 32 random bytes in base64): answered this once, never again',
  example: SECRET_EXAMPLE,
} as const;
const SECRET_RULES =
  'The secret is stored encrypted (AES-256-GCM) and never answered again: webhook objects carry only `secret_hint` ' +
  '(its kind and last four characters).';

/** POST /functions/v1/webhooks/register */
export const ApiRegisterWebhook = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Register a webhook',
      description:
        "Subscribes a URL to some of the store's events; each event is POSTed to it as a signed envelope " +
        '`{id, event, created_at, store_id, data}` (headers `X-Service-Signature`, `webhook-signature`, …). ' +
        'Leave `secret` out to have one generated: the answer then carries it in full in `secret`, this once. ' +
        `A supplied secret is not echoed. ${SECRET_RULES} What the webhook then receives: the callback \`storeEvent\`.`,
      callbacks: storeEventCallbacks(),
    }),
    ApiBody({
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
    }),
    // `secret` is left out when the merchant supplied one, so the schema is written here (ApiEnvelope makes every field
    // required).
    ApiExtraModels(WebhookView),
    ApiResponse({
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
    }),
  );

/** GET /functions/v1/webhooks */
export const ApiListWebhooks = () =>
  applyDecorators(
    ApiOperation({
      summary: "A store's webhooks, newest first",
      description: `Paginated with \`limit\` and \`cursor\`. ${SECRET_RULES}`,
    }),
    ApiPage(WebhookView),
  );

/** GET /functions/v1/webhooks/{webhook_id} */
export const ApiGetWebhook = () =>
  applyDecorators(
    ApiParam({ name: 'webhook_id', format: 'uuid' }),
    ApiOperation({ summary: 'One webhook', description: SECRET_RULES }),
    ApiEnvelope(200, { webhook: WebhookView }),
  );

/** PATCH /functions/v1/webhooks/{webhook_id} */
export const ApiUpdateWebhook = () =>
  applyDecorators(
    ApiParam({ name: 'webhook_id', format: 'uuid' }),
    ApiOperation({
      summary: 'Change, disable or re-enable a webhook',
      description:
        'Any of `url` (checked again), `events` (replaces the ' +
        'list), `secret` (replaces the secret at once, no overlap; ' +
        'use `rotate-secret` for a 24 h overlap) and `status`. `status: ' +
        '"disabled"` stops deliveries and cancels pending ones; ' +
        '`status: "active"` re-enables a webhook (also one disabled ' +
        'after failed deliveries) and clears `disabled_reason`; ' +
        'events from then on are delivered, and `recover` re-sends ' +
        'what failed meanwhile. An empty body changes nothing. ' +
        SECRET_RULES,
    }),
    ApiBody({
      type: UpdateWebhookDto,
      examples: {
        reEnable: { summary: 'Re-enable after the receiver is fixed', value: { status: 'active' } },
        change: {
          summary: 'Move and resubscribe',
          value: { url: 'https://merchant.example/hooks/v2', events: ['order.paid'] },
        },
      },
    }),
    ApiEnvelope(200, { webhook: WebhookView }),
  );

/** DELETE /functions/v1/webhooks/{webhook_id} */
export const ApiDeleteWebhook = () =>
  applyDecorators(
    ApiParam({ name: 'webhook_id', format: 'uuid' }),
    ApiOperation({
      summary: 'Delete a webhook',
      description: 'Deletes the webhook and its delivery log; attempts still queued are dropped.',
    }),
    ApiEnvelope(200, { message: { type: 'string', example: WEBHOOK_DELETED_MESSAGE } }),
  );

/** POST /functions/v1/webhooks/{webhook_id}/rotate-secret */
export const ApiRotateWebhookSecret = () =>
  applyDecorators(
    ApiParam({ name: 'webhook_id', format: 'uuid' }),
    ApiOperation({
      summary: "Rotate a webhook's signing secret",
      description:
        'Generates a new `whsec_` secret (32 random bytes, base64) and answers it in full, this once. For 24 ' +
        'hours the old secret keeps signing too: `webhook-signature` carries one `v1,` entry per secret, so a ' +
        'receiver verifies with either while it switches; `X-Service-Signature` uses the new secret. Rotating ' +
        'again within the 24 hours retires the older one.',
    }),
    ApiEnvelope(200, { webhook: WebhookView, secret: SECRET }),
  );
