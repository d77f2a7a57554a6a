import type { LibDatabase } from '@app/core';
import { SocialTables1763802800700 } from './migrations/1763802800700-social-tables.js';

/**
 * What social owns in the database: its tables (migrations/) and their functions, triggers, policies and grants (sql/).
 */
export const SOCIAL_DATABASE: LibDatabase = {
  name: 'social',
  migrations: [SocialTables1763802800700],
  sql: new URL('./sql/', import.meta.url),
};
