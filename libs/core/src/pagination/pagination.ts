import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, isUUID, Max, Min } from 'class-validator';
import { ApiError } from '../errors/api-error.js';
import { isoTimestamp } from '../time/iso-timestamp.js';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** `?limit=&cursor=` of every list route. */
export class PageQueryDto {
  @ApiPropertyOptional({ description: 'Items per page, 1 to 100', example: 20, default: DEFAULT_PAGE_SIZE })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  limit: number = DEFAULT_PAGE_SIZE;

  @ApiPropertyOptional({
    description: 'The `next_cursor` of the previous page',
    example: 'eyJ0IjoiMjAyNi0xMS0yMlQxMDowMDowMC4wMDBaIiwiaSI6IjEifQ',
  })
  @IsOptional()
  @IsString()
  cursor?: string;
}

/** Position after the last item of a page, newest first: (created_at, id). */
export interface Cursor {
  createdAt: Date;
  id: string;
}

export function encodeCursor(item: { created_at: Date | string; id: string }): string {
  return Buffer.from(JSON.stringify({ t: isoTimestamp(new Date(item.created_at)), i: item.id })).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): Cursor | null {
  if (!cursor) return null;
  try {
    const { t, i } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { t: unknown; i: unknown };
    const createdAt = new Date(String(t));
    const year = createdAt.getUTCFullYear();
    // Only dates PostgreSQL can compare: a hand-made cursor must not reach it out of range.
    if (typeof i !== 'string' || !isUUID(i) || Number.isNaN(createdAt.getTime()) || year < 1 || year > 9999)
      throw new Error('bad cursor');
    return { createdAt, id: i };
  } catch {
    throw ApiError.validation([{ field: 'cursor', message: 'is not a cursor returned by this list' }]);
  }
}

/**
 * Position after the last item of a page ordered by a timestamp kept to the microsecond (the outbox's
 * `created_at`, which a JSON date cannot hold): `at` as PostgreSQL writes it in UTC with six decimals
 * (`to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`), compared as a timestamptz.
 */
export interface PreciseCursor {
  at: string;
  id: string;
}

const PRECISE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

function sameMillisecond(at: string): boolean {
  const date = new Date(at);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 23) === at.slice(0, 23);
}

export function encodePreciseCursor(item: { position: string; id: string }): string {
  return Buffer.from(JSON.stringify({ p: item.position, i: item.id })).toString('base64url');
}

export function decodePreciseCursor(cursor: string | undefined): PreciseCursor | null {
  if (!cursor) return null;
  try {
    const { p, i } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { p: unknown; i: unknown };
    // Only what PostgreSQL reads as a timestamp in range: a hand-made cursor must not reach it otherwise.
    // (A date JavaScript reads differently, such as 30 February, is not one PostgreSQL reads.)
    const valid = typeof p === 'string' && PRECISE_TIME.test(p) && !p.startsWith('0000') && sameMillisecond(p);
    if (!valid || typeof i !== 'string' || !isUUID(i)) throw new Error('bad cursor');
    return { at: p, id: i };
  } catch {
    throw ApiError.validation([{ field: 'cursor', message: 'is not a cursor returned by this list' }]);
  }
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** Cuts the one extra row a query fetched (limit + 1) into a page and its next cursor. */
export function toPage<Row extends { created_at: Date | string; id: string }, T>(
  rows: Row[],
  limit: number,
  view: (row: Row) => T,
): Page<T> {
  return toPageWith(rows, limit, view, encodeCursor);
}

/** `toPage` with the cursor another encoder makes of the page's last row (`encodePreciseCursor`). */
export function toPageWith<Row, T>(rows: Row[], limit: number, view: (row: Row) => T, encode: (last: Row) => string) {
  const more = rows.length > limit;
  const pageRows = more ? rows.slice(0, limit) : rows;
  const page: Page<T> = { data: pageRows.map(view), next_cursor: more ? encode(pageRows[pageRows.length - 1]) : null };
  return page;
}
