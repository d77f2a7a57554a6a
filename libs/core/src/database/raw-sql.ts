import type { PoolClient, QueryResult } from 'pg';
import { QueryFailedError, type EntityManager, type QueryRunner } from 'typeorm';
import { namedQuery } from './named-statements.js';

// Helpers for the raw SQL the repositories write.

/** How many distinct statements get a name (a prepared statement on each connection that runs them). */
export const MAX_NAMED_STATEMENTS = 500;

const statementNames = new Map<string, string>();
let namesGiven = 0;

/**
 * A new statement name: the text's command and a number (`SELECT_12`). Traces show it: a named statement's
 * span takes its name (`pg.query:SELECT_12`) instead of the command parsed from the text.
 */
function nextName(sql: string): string {
  const command = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'SQL';
  namesGiven += 1;
  return `${command}_${namesGiven}`;
}

/**
 * The prepared statement's name for a statement's text: the same text always gets the same name, so each
 * connection parses and plans it once and then only binds and executes it. Texts past MAX_NAMED_STATEMENTS
 * (SQL built with a varying shape) stay unnamed, parsed every time, so no connection holds an unbounded
 * number of them.
 */
export function statementName(sql: string): string | undefined {
  const known = statementNames.get(sql);
  if (known !== undefined || statementNames.size >= MAX_NAMED_STATEMENTS) return known;
  const name = nextName(sql);
  statementNames.set(sql, name);
  return name;
}

/** PostgreSQL's refusal of a prepared statement whose result columns changed since it was prepared. */
function isStalePlan(error: unknown): boolean {
  const { code, message } = error as { code?: string; message?: string };
  return code === '0A000' && /cached plan must not change result type/.test(message ?? '');
}

/** The pg connection a transaction's query runner holds, or undefined when it holds none (yet). */
function heldConnection(runner: QueryRunner | undefined): PoolClient | undefined {
  if (runner === undefined || runner.isReleased) return undefined;
  return (runner as QueryRunner & { databaseConnection?: PoolClient }).databaseConnection;
}

/**
 * Runs raw SQL and returns its rows. TypeORM returns UPDATE and DELETE as `[rows, rowCount]`
 * and everything else as `rows`; repositories want rows either way (UPDATE … RETURNING included).
 *
 * Inside a transaction (a manager whose query runner holds a connection: every request transaction),
 * the statement goes straight to that pg connection as a named prepared statement, without TypeORM's
 * per-query work (its logger and subscriber events, which this project does not use); a refusal is
 * still TypeORM's `QueryFailedError`, carrying the driver's error and SQLSTATE as before.
 */
export async function queryRows<T = any>(
  manager: EntityManager,
  sql: string,
  parameters: unknown[] = [],
): Promise<T[]> {
  const connection = heldConnection(manager.queryRunner);
  if (connection !== undefined) {
    let result: QueryResult | QueryResult[];
    try {
      // A statement without parameters goes as a simple query, as TypeORM sends it (it may hold several).
      const name = parameters.length === 0 ? undefined : statementName(sql);
      result = await (parameters.length === 0
        ? connection.query(sql)
        : name === undefined
          ? connection.query(sql, parameters)
          : namedQuery(connection, name, sql, parameters));
    } catch (error) {
      // A migration changed what the statement returns (`SELECT *` on a table that gained a column): every
      // connection that prepared it refuses it from now on. A new name makes each prepare it afresh; this
      // request fails (its transaction is aborted), the next ones run.
      if (isStalePlan(error) && statementNames.has(sql)) statementNames.set(sql, nextName(sql));
      throw new QueryFailedError(sql, parameters, error as Error);
    }
    // Several statements in one text (no parameters) answer one result each; TypeORM then returns no rows.
    return (Array.isArray(result) ? undefined : result.rows) as T[];
  }
  const result: unknown = await manager.query(sql, parameters);
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number')
    return result[0] as T[];
  return result as T[];
}

/** A `%…%` ILIKE pattern matching `text` literally (its `%`, `_` and `\` escaped). */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}
