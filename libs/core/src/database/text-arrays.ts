import pg from 'pg';

/** PostgreSQL's type ids of `text[]` and `varchar[]`. */
export const TEXT_ARRAY_OID = 1009;
export const VARCHAR_ARRAY_OID = 1015;

type TextParser = (value: string) => unknown;

// pg's own parser (postgres-array): what every array outside the fast path still goes through.
// (pg's type ids enumerate no array types, hence the cast.)
const slowTextArray = (pg.types.getTypeParser as (oid: number, format: 'text') => TextParser)(TEXT_ARRAY_OID, 'text');

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN = 123;
const CLOSE = 125;
const COMMA = 44;

/**
 * A one-dimensional text array as PostgreSQL writes it when no element needs quoting (`{a,b,c}`, `{}`):
 * its elements, `NULL` being the SQL null (a string "NULL" would have been quoted). Undefined for
 * anything else (quotes, escapes, nested braces, bounds such as `[0:1]=`), which takes pg's own parser.
 */
export function fastTextArray(text: string): (string | null)[] | undefined {
  const last = text.length - 1;
  if (last < 1 || text.charCodeAt(0) !== OPEN || text.charCodeAt(last) !== CLOSE) return undefined;
  if (last === 1) return [];
  // One pass: each comma (and the closing brace) ends an element, the text between taken as it is.
  const elements: (string | null)[] = [];
  let start = 1;
  for (let at = 1; at < last; at++) {
    const code = text.charCodeAt(at);
    if (code === COMMA) {
      elements.push(element(text, start, at));
      start = at + 1;
    } else if (code === QUOTE || code === BACKSLASH || code === OPEN || code === CLOSE) {
      return undefined;
    }
  }
  elements.push(element(text, start, last));
  return elements;
}

/** The element between `start` and `end`: `NULL` is the SQL null (a string "NULL" would have been quoted). */
function element(text: string, start: number, end: number): string | null {
  const value = text.slice(start, end);
  return value === 'NULL' ? null : value;
}

/** A `text[]` or `varchar[]` value: the fast path above, else postgres-array as pg parses it. */
export function parseTextArray(text: string): unknown {
  return fastTextArray(text) ?? slowTextArray(text);
}
