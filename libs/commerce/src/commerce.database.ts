import type { LibDatabase } from '@app/core';
import { CommerceTables1763802800300 } from './migrations/1763802800300-commerce-tables.js';

/**
 * What commerce owns in the database: its tables (migrations/) and their functions, triggers, policies and grants
 * (sql/).
 */
export const COMMERCE_DATABASE: LibDatabase = {
  name: 'commerce',
  migrations: [CommerceTables1763802800300],
  sql: new URL('./sql/', import.meta.url),
};
