import { Controller, Get, Header, Headers, Inject, ServiceUnavailableException } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import {
  HealthCheck,
  HealthCheckService,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
  type HealthCheckResult,
} from '@nestjs/terminus';
import { Redis } from 'ioredis';
import { Public } from '../tenancy/route-access.decorator.js';
import { httpConfig, type HttpConfig } from '../config/http.config.js';
import { safeEqual } from '../crypto/tokens.js';
import { ApiError } from '../errors/api-error.js';
import { DATABASE_RETRY_AFTER_SECONDS } from '../errors/error-envelope.filter.js';
import { REDIS } from '../redis/redis.module.js';
import { MetricsService } from './metrics.service.js';
import { ApiLive, ApiReady, ApiMetrics } from './health.openapi.js';

@ApiTags('operations')
@Public()
// No credentials: `security: [{}]` says so in the OpenAPI document (an operation without `security` says nothing).
@ApiSecurity({})
@SkipThrottle()
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    private readonly metrics: MetricsService,
    @Inject(httpConfig.KEY) private readonly config: HttpConfig,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  @Get('health')
  @ApiLive()
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('health/ready')
  @HealthCheck({ noCache: true, swaggerDocumentation: false })
  @ApiReady()
  async ready() {
    try {
      return await this.health.check([
        () => this.database.pingCheck('postgres', { timeout: 2000 }),
        async () => {
          const redis = this.indicators.check('redis');
          try {
            await this.redis.ping();
            return redis.up();
          } catch (error) {
            return redis.down({ message: (error as Error).message });
          }
        },
      ]);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      // In the error envelope, naming what is down but not its address or the driver's message.
      const details = Object.fromEntries(
        Object.entries((error.getResponse() as HealthCheckResult).details).map(([name, check]) => [name, check.status]),
      );
      const down = Object.keys(details).filter((name) => details[name] !== 'up');
      throw ApiError.serviceUnavailable(
        `Not ready: ${down.join(' and ')} unreachable`,
        DATABASE_RETRY_AFTER_SECONDS,
        details,
      );
    }
  }

  @Get('metrics')
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  @ApiMetrics()
  scrape(@Headers('authorization') authorization: string | undefined): Promise<string> {
    this.allowScrape(authorization);
    return this.metrics.registry.metrics();
  }

  /**
   * Metrics name routes, volumes and failures: with METRICS_TOKEN only its bearer may read them;
   * without one they are open in development and closed in production, where they answer as an
   * unknown route would.
   */
  private allowScrape(authorization: string | undefined): void {
    const token = this.config.METRICS_TOKEN;
    if (token === undefined) {
      if (this.config.isProduction) throw new ApiError(404, 'NOT_FOUND', 'Route not found: GET /metrics');
      return;
    }
    const presented = /^Bearer (.+)$/i.exec(authorization ?? '')?.[1] ?? '';
    if (!safeEqual(presented, token)) {
      throw new ApiError(
        401,
        'UNAUTHENTICATED',
        'A valid metrics token is required (Authorization: Bearer <METRICS_TOKEN>)',
        undefined,
        {
          'WWW-Authenticate': 'Bearer',
        },
      );
    }
  }
}
