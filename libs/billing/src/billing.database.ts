import type { LibDatabase } from '@app/core';
import { BillingTables1763802800500 } from './migrations/1763802800500-billing-tables.js';

/**
 * What billing owns in the database: its tables (migrations/) and their functions, triggers, policies and grants
 * (sql/).
 */
export const BILLING_DATABASE: LibDatabase = {
  name: 'billing',
  migrations: [BillingTables1763802800500],
  sql: new URL('./sql/', import.meta.url),
};
