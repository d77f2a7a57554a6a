import type { LibDatabase } from '@app/core';
import { AuthTables1763802800200 } from './migrations/1763802800200-auth-tables.js';

/**
 * What auth owns in the database: its tables (migrations/) and their functions, triggers, policies and grants (sql/).
 */
export const AUTH_DATABASE: LibDatabase = {
  name: 'auth',
  migrations: [AuthTables1763802800200],
  sql: new URL('./sql/', import.meta.url),
};
