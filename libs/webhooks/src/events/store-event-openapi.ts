import type { CallbacksObject, ParameterObject } from '@nestjs/swagger';
import type { StoreEventDefinition, StoreEventName } from '@app/core';
import { STORE_EVENT_CATALOG, STORE_EVENT_NAMES } from './store-event-catalog.js';

/** An OpenAPI 3.0 schema object (what `components.schemas` holds). */
export type OpenApiSchema = Record<string, unknown>;

/** The component name of an event's schema: `order.created` → `OrderCreatedEvent`. */
export function storeEventSchemaName(event: string): string {
  return `${event
    .split(/[._]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')}Event`;
}

const EXAMPLE_ENVELOPE = {
  id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  created_at: '2026-11-22T10:00:00.000Z',
  store_id: '6f1c0b1e-2d4a-4c1b-9f57-1f0e8f6b8a11',
};

/** The envelope a webhook receives for `event`, with the catalog's schema and example of its `data`. */
function envelopeSchema(event: string, definition: StoreEventDefinition<any>): OpenApiSchema {
  return {
    type: 'object',
    description:
      `\`${event}\`: ${definition.description} The body of a ` +
      `webhook delivery (signed; de-duplicate on \`id\`, order by ` +
      '`created_at`), and the event subscribers of the event bus receive.',
    additionalProperties: false,
    required: ['id', 'event', 'created_at', 'store_id', 'data'],
    properties: {
      id: {
        type: 'string',
        format: 'uuid',
        description: 'The event id (`webhook-id`): the same on every attempt and redelivery',
      },
      event: { type: 'string', enum: [event] },
      created_at: { type: 'string', format: 'date-time', description: 'When the change committed' },
      store_id: { type: 'string', format: 'uuid' },
      data: definition.schema,
    },
    example: { ...EXAMPLE_ENVELOPE, event, data: definition.example },
  };
}

/** The component name of "any store event's envelope" (one of the event schemas, by `event`). */
export const STORE_EVENT_ENVELOPE_SCHEMA = 'StoreEventEnvelope';

const schemaRef = (event: string) => `#/components/schemas/${storeEventSchemaName(event)}`;

/** Any store event's envelope: one of the per-event schemas, told apart by `event`. */
function anyEnvelopeSchema(): OpenApiSchema {
  const refs = STORE_EVENT_NAMES.map((event) => ({ event, $ref: schemaRef(event) }));
  return {
    description:
      'A store event `{id, event, created_at, store_id, data}`: exactly what a webhook subscribed to it ' +
      'receives as the body of a delivery. `data` depends on `event`.',
    oneOf: refs.map(({ $ref }) => ({ $ref })),
    discriminator: { propertyName: 'event', mapping: Object.fromEntries(refs.map(({ event, $ref }) => [event, $ref])) },
  };
}

/**
 * One component schema per store event of the catalog, by `storeEventSchemaName`, and one for any of
 * them (`StoreEventEnvelope`), for the OpenAPI document (`apps/api/src/openapi.ts`); its `data` is
 * the catalog's JSON Schema, so the document and the tests that validate events read the same schema.
 */
export function storeEventOpenApiSchemas(): Record<string, OpenApiSchema> {
  const schemaOf = (event: StoreEventName) => envelopeSchema(event, STORE_EVENT_CATALOG[event]);
  const perEvent = STORE_EVENT_NAMES.map((event) => [storeEventSchemaName(event), schemaOf(event)]);
  return { ...Object.fromEntries(perEvent), [STORE_EVENT_ENVELOPE_SCHEMA]: anyEnvelopeSchema() };
}

const header = (name: string, description: string, example: string): ParameterObject => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' },
  example,
});

/**
 * What a registered webhook receives, as the OpenAPI 3.0 callback of `POST /functions/v1/webhooks/register`
 * (3.0's way to describe the requests an API makes to a URL its client gave): one signed POST per
 * event to the webhook's `url`, the body one of the event schemas of `storeEventOpenApiSchemas`.
 */
export function storeEventCallbacks(): CallbacksObject {
  const schemas = STORE_EVENT_NAMES.map((event) => ({
    event,
    $ref: `#/components/schemas/${storeEventSchemaName(event)}`,
  }));
  return {
    storeEvent: {
      '{$request.body#/url}': {
        post: {
          operationId: 'receiveStoreEvent',
          tags: ['webhooks'],
          summary: 'A store event, delivered to the webhook',
          description:
            'Each event the webhook subscribes to, POSTed to its `url` and signed with its secret (docs/api.md § ' +
            'Receiving deliveries): verify `webhook-signature` (Standard Webhooks) or `X-Service-Signature` ' +
            'before trusting the body, and de-duplicate on `webhook-id`. A test event (`POST ' +
            '/functions/v1/webhooks/{webhook_id}/test`) has the same envelope with `event: "webhook.test"` and ' +
            '`data: {webhook_id, message}`.',
          security: [],
          parameters: [
            header(
              'webhook-id',
              "The event id (the envelope's `id`): the same on every attempt and redelivery",
              EXAMPLE_ENVELOPE.id,
            ),
            header('webhook-timestamp', 'When this attempt was signed, in Unix seconds', '1763805600'),
            header(
              'webhook-signature',
              'Space-separated `v1,<base64 HMAC-SHA256 of ' +
                '"{webhook-id}.{webhook-timestamp}.{body}">`, one per signing secret',
              'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
            ),
            header(
              'X-Service-Signature',
              "Lowercase hex HMAC-SHA256 of the body, keyed with the current secret's UTF-8 bytes",
              '5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
            ),
            header('X-Service-Event', 'The event kind', 'order.paid'),
            header(
              'X-Service-Delivery',
              'The delivery id (a redelivery has its own)',
              '0b6e1c7a-9a55-4f4e-8f0e-3c2d1b0a9f8e',
            ),
            header('X-Service-Attempt', 'The attempt of this delivery, from 1', '1'),
          ],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  oneOf: schemas.map(({ $ref }) => ({ $ref })),
                  discriminator: {
                    propertyName: 'event',
                    mapping: Object.fromEntries(schemas.map(({ event, $ref }) => [event, $ref])),
                  },
                },
              },
            },
          },
          responses: {
            '2XX': { description: 'Received: the delivery succeeded' },
            '410': { description: 'Gone: the webhook is disabled at once' },
            default: {
              description:
                'Any other answer, a redirect (never followed) or no answer in time: the attempt failed and is ' +
                'tried again later; when the last attempt (the 5th, by default) fails, the webhook is disabled',
            },
          },
        },
      },
    },
  };
}
