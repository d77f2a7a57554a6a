import { IsString, Matches } from 'class-validator';
import { defineSettings, Setting, SettingsGroup } from '../config/settings.js';

export class RedisConfig extends SettingsGroup {
  @Setting('Redis URL (`redis://` or `rediss://`).')
  @Matches(/^rediss?:\/\//, { message: 'must be a redis:// URL' })
  REDIS_URL = 'redis://127.0.0.1:6379';

  @Setting(
    'Prefix of every Redis key this process writes (rate limits, OAuth state; ' +
      'Bull queues under `<prefix>bull`). Instances of one deployment share it.',
  )
  @IsString()
  REDIS_PREFIX = 'storefront:';
}

export const redisConfig = defineSettings('redis', '@app/core', RedisConfig, {
  description: 'Redis: rate limits, sign-in counts, OAuth state, Bull queues.',
});
