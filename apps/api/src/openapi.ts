import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { HttpConfig } from '@app/core';
import { storeEventOpenApiSchemas } from '@app/webhooks';

/** Swagger UI at /docs and the OpenAPI 3 document at /docs-json. */
export function setupOpenApi(app: NestFastifyApplication, config: HttpConfig): void {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Storefront Platform API')
      .setDescription(
        "AI generation paid in credits, social publishing and signed webhooks for merchants' apps. " +
          'Sign in at /auth/v1 (GoTrue-compatible: @supabase/supabase-js works), then call /functions/v1 with ' +
          '`Authorization: Bearer <access_token>`. Errors: `{success: false, error: {code, message, details}}`.',
      )
      .setVersion('1.0')
      .addServer(config.baseUrl)
      .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A user access token from /auth/v1/token' })
      .addApiKey({ type: 'apiKey', in: 'header', name: 'apikey', description: 'The public API key (PUBLIC_API_KEY)' }, 'apikey')
      .build(),
  );
  // The store events, one component schema each (`OrderCreatedEvent`, …), from the event catalog: what a
  // webhook receives. OpenAPI 3.0 has no `webhooks` section, and Nest writes a 3.0 document.
  document.components = { ...document.components, schemas: { ...document.components?.schemas, ...storeEventOpenApiSchemas() } };
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json', customSiteTitle: 'Storefront Platform API' });
}
