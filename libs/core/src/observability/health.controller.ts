import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import { HealthCheck, HealthCheckService, HealthIndicatorService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { Redis } from 'ioredis';
import { Public } from '../auth-context/public.decorator.js';
import { REDIS } from '../redis/redis.module.js';
import { MetricsService } from './metrics.service.js';

@ApiTags('operations')
@Public()
@SkipThrottle()
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    private readonly metrics: MetricsService,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  @Get('health')
  @ApiOperation({ summary: 'Liveness: the process answers' })
  @ApiOkResponse({ schema: { example: { status: 'ok' } } })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('health/ready')
  @HealthCheck()
  @ApiOperation({ summary: 'Readiness: PostgreSQL and Redis reachable' })
  @ApiServiceUnavailableResponse({ description: 'A dependency is down; `details` names it' })
  ready() {
    return this.health.check([
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
  }

  @Get('metrics')
  @ApiExcludeEndpoint()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
