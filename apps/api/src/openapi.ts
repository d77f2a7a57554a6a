import type { INestApplication } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule, type HeaderObject, type OpenAPIObject } from '@nestjs/swagger';
import { declareIdempotency, type HttpConfig } from '@app/core';
import { storeEventOpenApiSchemas } from '@app/webhooks';

/**
 * Every tag an operation carries (`@ApiTags`), in the order Swagger UI lists them, with what it
 * groups. The document declares exactly these; test/openapi-lint.e2e-spec.ts fails on an operation
 * whose tag is not here, and on a tag here that no operation uses.
 */
export const API_TAGS: Readonly<Record<string, string>> = {
  auth:
    'Accounts and sessions under /auth/v1, GoTrue-compatible: sign-up, sign-in and refresh, the signed-in user, ' +
    "password recovery, e-mails' links and codes, sign-out, Google sign-in",
  stores: 'Stores: creating them, their settings and the sender of their e-mails',
  'api-keys': "Store keys for a merchant's servers: made, listed and revoked by the store's owner",
  members: "A store's team: invitations, roles and permissions",
  catalog: "A store's products and their stock",
  customers: "A store's customers",
  orders: 'Orders: placing them, listing them, moving them through their statuses',
  credits: "AI credits: a store's balance and usage, grants by the admin",
  ai: 'The AI functions, paid in credits, and the blog covers they render',
  social: 'Connecting social accounts to a store; publishing, scheduling and cancelling posts, and their history',
  webhooks:
    'Signed webhooks of store events: registration, the delivery log, test events, redelivery; merchant notifications',
  mail: 'The development mailbox, where e-mails go without an SMTP server (admin)',
  operations: 'Liveness and readiness checks',
};

/** Swagger UI at /docs and the OpenAPI 3 document at /docs-json. */
export function setupOpenApi(app: NestFastifyApplication, config: HttpConfig): void {
  const document = buildOpenApiDocument(app, config.baseUrl);
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs-json',
    customSiteTitle: 'Storefront Platform API',
  });
}

/** The OpenAPI document of an app's routes, with `serverUrl` as its one server. */
export function buildOpenApiDocument(app: INestApplication, serverUrl: string): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Storefront Platform API')
    .setDescription(
      "AI generation paid in credits, social publishing and signed webhooks for merchants' apps. " +
        'Sign in at /auth/v1 (GoTrue-compatible: @supabase/supabase-js works), then call /functions/v1 with ' +
        "`Authorization: Bearer <access_token>`. A merchant's server calls the operations that list `storeKey` " +
        'with a store key (`Authorization: Bearer sk_…`). Errors: `{success: false, error: {code, message, details}}`.',
    )
    .setVersion('1.0')
    .addServer(serverUrl)
    .addBearerAuth({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: 'A user access token from /auth/v1/token',
    })
    .addApiKey(
      { type: 'apiKey', in: 'header', name: 'apikey', description: 'The public API key (PUBLIC_API_KEY)' },
      'apikey',
    )
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'sk_…',
        description:
          "A store key (POST /functions/v1/stores/{store_id}/api-keys), for a merchant's server: a team member " +
          'of its one store with its permissions. Only the operations that list this scheme accept it; the ' +
          'others answer 403 (401 under /auth/v1).',
      },
      'storeKey',
    );
  for (const [name, description] of Object.entries(API_TAGS)) builder.addTag(name, description);
  const document = SwaggerModule.createDocument(app, builder.build());
  // The store events, one component schema each (`OrderCreatedEvent`, …), from the event catalog: what a
  // webhook receives. OpenAPI 3.0 has no `webhooks` section, and Nest writes a 3.0 document.
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, ...storeEventOpenApiSchemas() },
  };
  declareOpenOperations(document);
  declareIdempotency(document);
  declareRateLimitHeaders(document);
  return document;
}

/** The RateLimit header fields (IETF httpapi draft) of a /functions/v1 answer the rate limit counted. */
const RATE_LIMIT_HEADERS: Record<string, HeaderObject> = {
  'RateLimit-Limit': {
    description: "Requests the caller may make to this route in the current window (RATE_LIMIT_PER_MINUTE's window)",
    schema: { type: 'integer', example: 1200 },
  },
  'RateLimit-Remaining': {
    description: 'Requests left in the current window; 0 on a 429',
    schema: { type: 'integer', example: 1187 },
  },
  'RateLimit-Reset': {
    description: 'Seconds until the window resets (on a 429, the same as Retry-After)',
    schema: { type: 'integer', example: 42 },
  },
};

/**
 * Every /functions/v1 answer but the 401 carries the RateLimit-* headers (AppThrottlerGuard): they
 * are declared once as components and referenced from each of those answers.
 */
function declareRateLimitHeaders(document: OpenAPIObject): void {
  document.components = { ...document.components, headers: { ...document.components?.headers, ...RATE_LIMIT_HEADERS } };
  const reference = (name: string) => [name, { $ref: `#/components/headers/${name}` }];
  const references = Object.fromEntries(Object.keys(RATE_LIMIT_HEADERS).map(reference));
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith('/functions/v1/')) continue;
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      for (const [status, response] of Object.entries(item[method]?.responses ?? {})) {
        if (status === '401' || !response || '$ref' in response) continue;
        response.headers = { ...response.headers, ...references };
      }
    }
  }
}

/**
 * An operation that names no security scheme takes no credentials (health, the browser's redirects,
 * the cover images): `security: []` says so, where a missing `security` would leave it unsaid (the
 * document has no default).
 */
function declareOpenOperations(document: OpenAPIObject): void {
  for (const item of Object.values(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const) {
      const operation = item[method];
      if (operation && !operation.security) operation.security = [];
    }
  }
}
