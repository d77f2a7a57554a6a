import type { LibDatabase } from '@app/core';
import { MailTables1763802800800 } from './migrations/1763802800800-mail-tables.js';

/**
 * What mail owns in the database: its tables (migrations/) and their functions, triggers, policies and grants (sql/).
 */
export const MAIL_DATABASE: LibDatabase = {
  name: 'mail',
  migrations: [MailTables1763802800800],
  sql: new URL('./sql/', import.meta.url),
};
