import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { OpenAPIObject } from '@nestjs/swagger';
import { AppModule } from './app.module.js';
import { buildOpenApiDocument } from './openapi.js';
import { loadAppSettings } from './settings.js';

/** The server the committed document (sdk/openapi.json) names: the development address. A client sets its own. */
export const SDK_SERVER_URL = 'http://localhost:3000';

/**
 * The OpenAPI document without PostgreSQL or Redis: the app's modules are wired in Nest's preview mode,
 * where no provider is instantiated and nothing connects. The routes and their decorators are all the
 * document needs. Settings are fixed placeholders (not this machine's environment or `.env`), so the
 * document is the same wherever it is generated. test/sdk.e2e-spec.ts checks it equals what a running
 * app serves at /docs-json.
 */
export async function previewOpenApiDocument(): Promise<OpenAPIObject> {
  const settings = loadAppSettings({
    NODE_ENV: 'test',
    JWT_SECRET: 'openapi-preview-placeholder-not-a-secret',
    ENCRYPTION_KEY: `${'A'.repeat(43)}=`,
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(settings), new FastifyAdapter(), {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  // No app.close(): shutdown hooks would run against providers that were never built; the process ends instead.
  return sortKeys(buildOpenApiDocument(app, SDK_SERVER_URL));
}

/**
 * Object keys in code-point order at every level (arrays keep their order), so moving a module or a
 * decorator does not reorder the committed document. Code-point order, not locale order: the same on
 * every machine.
 */
export function sortKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item: unknown) => sortKeys(item)) as T;
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([key, item]) => [key, sortKeys(item)])) as T;
}
