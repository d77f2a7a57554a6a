import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NestFactory } from '@nestjs/core';
import type { IncomingMessage, Server } from 'node:http';
import { Logger } from 'nestjs-pino';
import {
  ApiError,
  AUTH_PREFIX,
  BODY_LIMIT_BYTES,
  MAX_PARAM_LENGTH,
  MetricsService,
  bodyShapeError,
  databaseConfig,
  frameworkErrorReply,
  httpConfig,
  prepareDatabase,
  registerCanonicalPrefixes,
  registerJsonOnlyBodies,
  registerRequestContext,
  requestId,
  ROOT_LOGGER,
  RouteTransactions,
  type Settings,
} from '@app/core';
import { AppModule, LIB_DATABASES } from './app.module.js';
import { registerDrainHooks } from './graceful-shutdown.js';
import { setupOpenApi } from './openapi.js';
import { helmetHeaders, registerSecurityHeaders, securityHeaderDefaults } from './security-headers.js';

/**
 * What the app's steps set on a request (the declarations of `FastifyRequest` in libs), and what
 * passport's authenticate step adds to every request it sees.
 */
export const REQUEST_FIELDS = [
  'credentials',
  'routeAuth',
  'tokenUserId',
  'throttleVerdict',
  'rateLimitHeaders',
  'requestTransaction',
  'callerFacts',
  'principal',
  'storeAccess',
  'refusalUnlessReplay',
  'heldValidationError',
  'logIn',
  'login',
  'logOut',
  'logout',
  'isAuthenticated',
  'isUnauthenticated',
  '_sessionManager',
  'authInfo',
];

/** Builds the HTTP application exactly as it serves: used by main.ts and by the e2e tests. */
export async function createApp(settings: Settings): Promise<NestFastifyApplication> {
  const database = settings.get(databaseConfig);
  const config = settings.get(httpConfig);
  if (!database.requestBindingKey) await prepareDatabase(database, LIB_DATABASES);
  // The router's own refusals (malformed URL, overlong parameter) are answered before any hook: they get
  // the default security headers here.
  const frameworkHeaders = helmetHeaders(securityHeaderDefaults(config));
  const adapter = new FastifyAdapter({
    bodyLimit: BODY_LIMIT_BYTES,
    // Shutdown (graceful-shutdown.ts): idle keep-alive connections are closed at once, and requests
    // that still arrive get our 503 in the error envelope (registerDrainHooks) rather than Fastify's own body.
    forceCloseConnections: 'idle',
    return503OnClosing: false,
    trustProxy: config.trustProxy,
    genReqId: (req: IncomingMessage) => requestId(req),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: (error: { code?: string }, request: FastifyRequest, reply: FastifyReply) => {
      for (const [name, value] of frameworkHeaders) reply.raw.setHeader(name, value);
      frameworkErrorReply(error, request, reply);
    },
  });
  const fastify = adapter.getInstance();
  registerSecurityHeaders(fastify, config);
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    done();
  });
  registerDrainHooks(fastify);
  registerCanonicalPrefixes(fastify);
  registerJsonOnlyBodies(fastify);
  // Every request's own fields, there from the start (Fastify sets them in its request constructor), so
  // that requests keep one hidden class instead of growing a field at a time as each step sets its own.
  for (const field of REQUEST_FIELDS) fastify.decorateRequest(field, undefined);

  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(settings), adapter, {
    bufferLogs: true,
    abortOnError: false,
  });
  app.useLogger(app.get(Logger));
  // Each request's context (nestjs-cls) and its log line, where Nest middleware would run: after the
  // hooks above and the adapter's own (CORS, security headers), which may answer a request first.
  registerRequestContext(fastify, app.get(ROOT_LOGGER));
  // supabase-js sends `Content-Type: application/json` with no body on POST /auth/v1/logout; GoTrue
  // accepts that, so /auth/v1 does too. Everywhere else an empty JSON body stays a MALFORMED_JSON.
  // PostgreSQL text cannot hold NUL characters, and no route takes a body nested deeper than
  // MAX_BODY_DEPTH: both are refused here as a 400, for every route.
  const parseJson = fastify.getDefaultJsonParser(
    fastify.initialConfig.onProtoPoisoning ?? 'error',
    fastify.initialConfig.onConstructorPoisoning ?? 'error',
  );
  app.useBodyParser<Server>('application/json', { bodyLimit: BODY_LIMIT_BYTES }, (request, body, done) => {
    if (body.length === 0 && request.url.startsWith(`${AUTH_PREFIX}/`)) return done(null, undefined);
    parseJson(request, body.toString('utf8'), (error, value) => {
      if (error) return done(error, undefined);
      const problem = bodyShapeError(value);
      if (problem !== null) return done(ApiError.validation([problem]), undefined);
      done(null, value);
    });
  });
  app.enableCors({
    // `*` (development only) reflects any origin; otherwise only the listed ones, none when the list is empty.
    origin: config.corsOrigins.includes('*') ? true : config.corsOrigins,
    methods: ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS'],
    allowedHeaders: [
      'authorization',
      'apikey',
      'x-client-info',
      'content-type',
      'x-request-id',
      'idempotency-key',
      'x-supabase-api-version',
    ],
    // What a browser client may read of an answer: its request id, when to retry, whether it is an
    // idempotent replay, and how much of its rate limit is left.
    exposedHeaders: [
      'x-request-id',
      'retry-after',
      'idempotent-replayed',
      'ratelimit-limit',
      'ratelimit-remaining',
      'ratelimit-reset',
    ],
    maxAge: 600,
  });
  const metrics = app.get(MetricsService);
  // A callback hook, not an async one: an async hook costs a promise (and its async resource) per request.
  fastify.addHook('onResponse', (request, reply, done) => {
    // A safety net: a request transaction nobody adopted or closed is rolled back and its connection freed.
    request.requestTransaction?.abandon();
    metrics.observeHttp(
      request.method,
      request.routeOptions.url ?? 'unmatched',
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
  setupOpenApi(app, config);
  // Before `init` registers the routes: Nest registers the handlers as they are then.
  app.get(RouteTransactions).wrapRoutes();
  try {
    await app.init();
  } catch (error) {
    // A start refused part-way (the admin bootstrap's StartupError) releases the connections it opened.
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}
