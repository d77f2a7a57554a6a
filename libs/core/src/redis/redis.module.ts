import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { redisConfig, type RedisConfig } from './redis.config.js';

export const REDIS = Symbol('REDIS');
/** Injects the shared ioredis client; every key it writes carries REDIS_PREFIX. */
export const InjectRedis = () => Inject(REDIS);

export function createRedis(config: RedisConfig): Redis {
  return new Redis(config.REDIS_URL, {
    keyPrefix: config.REDIS_PREFIX,
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
  });
}

@Global()
@Module({
  providers: [{ provide: REDIS, inject: [redisConfig.KEY], useFactory: createRedis }],
  exports: [REDIS],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@InjectRedis() private readonly redis: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
