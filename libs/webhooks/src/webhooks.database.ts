import type { LibDatabase } from '@app/core';
import { WebhooksTables1763802800400 } from './migrations/1763802800400-webhooks-tables.js';

/**
 * What webhooks owns in the database: its tables (migrations/) and their functions, triggers, policies and grants
 * (sql/).
 */
export const WEBHOOKS_DATABASE: LibDatabase = {
  name: 'webhooks',
  migrations: [WebhooksTables1763802800400],
  sql: new URL('./sql/', import.meta.url),
};
