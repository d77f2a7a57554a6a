import { databaseConfig } from '../database/database.config.js';
import { loggingConfig } from '../observability/logging.config.js';
import { outboxConfig } from '../outbox/outbox.config.js';
import { redisConfig } from '../redis/redis.config.js';
import { httpConfig } from './http.config.js';
import { runtimeConfig } from './runtime.config.js';

/** Core's settings namespaces, in the order the reference lists them. */
export const CORE_SETTINGS = [
  runtimeConfig,
  httpConfig,
  databaseConfig,
  redisConfig,
  loggingConfig,
  outboxConfig,
] as const;
