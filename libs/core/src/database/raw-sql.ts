import type { EntityManager } from 'typeorm';

// Helpers for the raw SQL the repositories write.

/**
 * Runs raw SQL and returns its rows. TypeORM returns UPDATE and DELETE as `[rows, rowCount]`
 * and everything else as `rows`; repositories want rows either way (UPDATE … RETURNING included).
 */
export async function queryRows<T = any>(
  manager: EntityManager,
  sql: string,
  parameters: unknown[] = [],
): Promise<T[]> {
  const result: unknown = await manager.query(sql, parameters);
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number')
    return result[0] as T[];
  return result as T[];
}

/** A `%…%` ILIKE pattern matching `text` literally (its `%`, `_` and `\` escaped). */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}
