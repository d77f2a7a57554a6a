import { Controller, Get, Header, Headers, Inject, ServiceUnavailableException } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags, type SchemaObject } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import { HealthCheck, HealthCheckService, HealthIndicatorService, TypeOrmHealthIndicator, type HealthCheckResult } from '@nestjs/terminus';
import { Redis } from 'ioredis';
import { Public } from '../tenancy/route-access.decorator.js';
import { httpConfig, type HttpConfig } from '../config/http.config.js';
import { safeEqual } from '../crypto/tokens.js';
import { ApiError } from '../errors/api-error.js';
import { DATABASE_RETRY_AFTER_SECONDS } from '../errors/error-envelope.filter.js';
import { ApiErrorDetailsResponse } from '../openapi/api-responses.js';
import { REDIS } from '../redis/redis.module.js';
import { MetricsService } from './metrics.service.js';

/** The checks of the readiness answer, by name (`postgres`, `redis`), as @nestjs/terminus reports them. */
const checks = (description: string, example: Record<string, { status: 'up' | 'down' }>): SchemaObject => ({
  type: 'object',
  description,
  additionalProperties: {
    type: 'object',
    required: ['status'],
    properties: { status: { type: 'string', enum: ['up', 'down'] } },
  },
  example,
});
const BOTH_UP = { postgres: { status: 'up' }, redis: { status: 'up' } } as const;

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
  @ApiOperation({
    summary: 'Liveness: the process answers',
    description: 'Checks nothing else: for a liveness probe. Not rate limited, no credentials.',
  })
  @ApiOkResponse({
    description: 'The process is up',
    schema: { type: 'object', required: ['status'], properties: { status: { type: 'string', enum: ['ok'] } }, example: { status: 'ok' } },
  })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('health/ready')
  @HealthCheck({ noCache: true, swaggerDocumentation: false })
  @ApiOperation({
    summary: 'Readiness: PostgreSQL and Redis reachable',
    description:
      'For a readiness probe: 200 while both answer, 503 naming the one that does not. Not rate limited, no credentials, never cached.',
  })
  @ApiOkResponse({
    description: 'Both dependencies answer',
    schema: {
      type: 'object',
      required: ['status', 'info', 'error', 'details'],
      properties: {
        status: { type: 'string', enum: ['ok'] },
        info: checks('The checks that passed', BOTH_UP),
        error: checks('The checks that failed: none', {}),
        details: checks('Every check', BOTH_UP),
      },
    },
  })
  @ApiErrorDetailsResponse(
    503,
    '`SERVICE_UNAVAILABLE`, with Retry-After: a dependency is down; `details` gives each one `up` or `down`',
    { type: 'object', additionalProperties: { type: 'string', enum: ['up', 'down'] } },
    { code: 'SERVICE_UNAVAILABLE', message: 'Not ready: postgres unreachable', details: { postgres: 'down', redis: 'up' } },
  )
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
      throw ApiError.serviceUnavailable(`Not ready: ${down.join(' and ')} unreachable`, DATABASE_RETRY_AFTER_SECONDS, details);
    }
  }

  @Get('metrics')
  @ApiExcludeEndpoint()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
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
      throw new ApiError(401, 'UNAUTHENTICATED', 'A valid metrics token is required (Authorization: Bearer <METRICS_TOKEN>)', undefined, {
        'WWW-Authenticate': 'Bearer',
      });
    }
  }
}
