import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, DiscoveryModule } from '@nestjs/core';
import { BullModule } from '@nestjs/bull';
import { CqrsModule } from '@nestjs/cqrs';
import { TerminusModule } from '@nestjs/terminus';
import { ThrottlerModule } from '@nestjs/throttler';
import { ClsModule } from 'nestjs-cls';
import { ConfigModule } from './config/config.module.js';
import { httpConfig, type HttpConfig } from './config/http.config.js';
import type { Settings } from './config/load-settings.js';
import { SecretBox } from './crypto/secret-box.js';
import { SafeHttpClient } from './http-client/safe-http-client.js';
import { SAFE_HTTP_PROVIDERS } from './http-client/safe-http.providers.js';
import { DomainErrorAnswers } from './errors/domain-error.js';
import { ErrorEnvelopeFilter } from './errors/error-envelope.filter.js';
import { HealthController } from './observability/health.controller.js';
import { loggingConfig } from './observability/logging.config.js';
import { loggingModule } from './observability/logging.js';
import { MetricsService } from './observability/metrics.service.js';
import { EventErrorLogger } from './outbox/event-error-logger.js';
import { OutboxRelay } from './outbox/outbox-relay.js';
import { OutboxRetention } from './outbox/outbox-retention.js';
import { OutboxService } from './outbox/outbox.service.js';
import { StoreEventCounter } from './outbox/store-event-counter.js';
import { StoreEventSubscribers } from './outbox/store-event-subscribers.js';
import { IdempotentWrites } from './idempotency/idempotent-writes.js';
import { IdempotencyStore } from './idempotency/idempotency.store.js';
import { redisConfig, type RedisConfig } from './redis/redis.config.js';
import { RedisModule } from './redis/redis.module.js';
import { AppThrottlerGuard, appThrottlers } from './throttling/app-throttler.guard.js';
import { RedisThrottlerStorage } from './throttling/redis-throttler.storage.js';
import { scopedTransactions, TenancyModule } from './tenancy/tenancy.module.js';
import { RouteTransactions } from './transactions/route-transactions.js';

/** Holds the throttler storage so ThrottlerModule's factory can inject it. */
@Module({})
class ThrottlerHost {}

export interface CoreOptions {
  /** Every namespace's settings, as loadSettings read them (apps/api/src/settings.ts). */
  settings: Settings;
}

/** Config, PostgreSQL, Redis, Bull, CQRS, transactions, logging, errors, validation, health and metrics. */
@Module({})
export class CoreModule {
  static forRoot({ settings }: CoreOptions): DynamicModule {
    const throttlerModule = ThrottlerModule.forRootAsync({
      inject: [httpConfig.KEY, RedisThrottlerStorage],
      useFactory: (http: HttpConfig, storage: RedisThrottlerStorage) => ({
        storage,
        throttlers: appThrottlers(http),
      }),
    });
    return {
      module: CoreModule,
      global: true,
      imports: [
        ConfigModule.forRoot(settings),
        loggingModule(settings.get(loggingConfig)),
        TenancyModule,
        RedisModule,
        BullModule.forRootAsync({
          inject: [redisConfig.KEY],
          useFactory: (redis: RedisConfig) => ({ redis: redis.REDIS_URL, prefix: `${redis.REDIS_PREFIX}bull` }),
        }),
        // ClsService and the transactional plugin, without ClsModule.forRoot: a request's context is entered by
        // a Fastify hook (registerRequestContext), and forRoot registers a global guard and interceptor even
        // when told not to mount them (no-ops then), which made Nest build an rxjs chain for every request.
        { ...ClsModule.registerPlugins([scopedTransactions()]), global: true },
        CqrsModule.forRoot(),
        DiscoveryModule,
        TerminusModule,
        { module: ThrottlerHost, global: true, providers: [RedisThrottlerStorage], exports: [RedisThrottlerStorage] },
        throttlerModule,
      ],
      controllers: [HealthController],
      providers: [
        MetricsService,
        OutboxService,
        OutboxRelay,
        OutboxRetention,
        StoreEventSubscribers,
        StoreEventCounter,
        SecretBox,
        IdempotencyStore,
        AppThrottlerGuard,
        ...SAFE_HTTP_PROVIDERS,
        EventErrorLogger,
        DomainErrorAnswers,
        { provide: APP_FILTER, useClass: ErrorEnvelopeFilter },
        // No app pipe: bodies and queries carry their validation pipe (`Body`, `Query`: validated-params.ts).
        IdempotentWrites,
        // Wraps every route's handler: the request transaction, and a write's Idempotency-Key inside it.
        RouteTransactions,
      ],
      exports: [
        TenancyModule,
        AppThrottlerGuard,
        MetricsService,
        OutboxService,
        OutboxRelay,
        OutboxRetention,
        StoreEventSubscribers,
        DomainErrorAnswers,
        SecretBox,
        IdempotencyStore,
        RouteTransactions,
        SafeHttpClient,
        ThrottlerModule,
        CqrsModule,
        BullModule,
      ],
    };
  }
}
