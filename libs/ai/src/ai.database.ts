import type { LibDatabase } from '@app/core';
import { AiTables1763802800600 } from './migrations/1763802800600-ai-tables.js';

/** What ai owns in the database: its tables (migrations/) and their functions, triggers, policies and grants (sql/). */
export const AI_DATABASE: LibDatabase = {
  name: 'ai',
  migrations: [AiTables1763802800600],
  sql: new URL('./sql/', import.meta.url),
};
