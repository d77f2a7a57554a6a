import type { LibDatabase } from '@app/core';
import { NotificationsTables1763802800450 } from './migrations/1763802800450-notifications-tables.js';

/**
 * What notifications owns in the database: its tables (migrations/) and their functions, triggers, policies and grants
 * (sql/).
 */
export const NOTIFICATIONS_DATABASE: LibDatabase = {
  name: 'notifications',
  migrations: [NotificationsTables1763802800450],
  sql: new URL('./sql/', import.meta.url),
};
