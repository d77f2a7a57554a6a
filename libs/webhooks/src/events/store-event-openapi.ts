import type { StoreEventDefinition } from '@app/core';
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
      `\`${event}\`: ${definition.description} The body of a webhook delivery (signed; de-duplicate on \`id\`, order by ` +
      '`created_at`), and the event subscribers of the event bus receive.',
    additionalProperties: false,
    required: ['id', 'event', 'created_at', 'store_id', 'data'],
    properties: {
      id: { type: 'string', format: 'uuid', description: 'The event id (`webhook-id`): the same on every attempt and redelivery' },
      event: { type: 'string', enum: [event] },
      created_at: { type: 'string', format: 'date-time', description: 'When the change committed' },
      store_id: { type: 'string', format: 'uuid' },
      data: definition.schema,
    },
    example: { ...EXAMPLE_ENVELOPE, event, data: definition.example },
  };
}

/**
 * One component schema per store event of the catalog, by `storeEventSchemaName`, for the OpenAPI
 * document (`apps/api/src/openapi.ts`); its `data` is the catalog's JSON Schema, so the document and
 * the tests that validate events read the same schema.
 */
export function storeEventOpenApiSchemas(): Record<string, OpenApiSchema> {
  return Object.fromEntries(
    STORE_EVENT_NAMES.map((event) => [storeEventSchemaName(event), envelopeSchema(event, STORE_EVENT_CATALOG[event])]),
  );
}
