import pg from 'pg';
import { noteIsoText } from '../time/iso-timestamp.js';

/** PostgreSQL's type ids of `timestamp with time zone` and `timestamp` (without). */
export const TIMESTAMPTZ_OID = 1184;
export const TIMESTAMP_OID = 1114;

type TextParser = (value: string) => unknown;

// pg's own parsers (postgres-date): what every value outside the fast path still goes through.
const slowTimestamptz = pg.types.getTypeParser(TIMESTAMPTZ_OID, 'text') as TextParser;
const slowTimestamp = pg.types.getTypeParser(TIMESTAMP_OID, 'text') as TextParser;

const ZERO = 48;

/** The number the two digits at `at` write, or NaN if either is not a digit. */
function twoDigits(text: string, at: number): number {
  const tens = text.charCodeAt(at) - ZERO;
  const ones = text.charCodeAt(at + 1) - ZERO;
  return tens >= 0 && tens <= 9 && ones >= 0 && ones <= 9 ? tens * 10 + ones : NaN;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * Days from 1970-01-01 to the first of `month` (1–12) of `year`, in the proleptic Gregorian calendar as
 * Date counts them: March-based years, so that February's leap day comes last (Howard Hinnant's
 * days_from_civil).
 */
function daysBeforeMonth(year: number, month: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5);
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/**
 * The fast path: `YYYY-MM-DD HH:MM:SS[.ffffff]`, then the offset if `zoned`, as a Date; undefined for anything else.
 * Only a year of four digits from 0100 on: shorter and longer years (and BC) go the slow way, where
 * postgres-date handles the years 0–99 that `Date` would read as 19xx.
 */
export function fastTimestamp(text: string, zoned: boolean): Date | undefined {
  if (
    text.length < 19 ||
    text.charCodeAt(4) !== 45 || // -
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 32 || // space
    text.charCodeAt(13) !== 58 || // :
    text.charCodeAt(16) !== 58
  )
    return undefined;
  const year = twoDigits(text, 0) * 100 + twoDigits(text, 2);
  const month = twoDigits(text, 5);
  const day = twoDigits(text, 8);
  const hour = twoDigits(text, 11);
  const minute = twoDigits(text, 14);
  const second = twoDigits(text, 17);
  // NaN fails every comparison: a non-digit anywhere above says no here.
  if (!(year >= 100 && month >= 0 && day >= 0 && hour >= 0 && minute >= 0 && second >= 0)) return undefined;
  let at = 19;
  let millisecond = 0;
  let digits = 0;
  if (text.charCodeAt(at) === 46) {
    // .ffffff: PostgreSQL writes 1 to 6 digits and Date keeps milliseconds, the first three; postgres-date's
    // 1000 × 0.ffffff, which Date.UTC truncates, gives the same for every 1 to 6 digits (timestamps.spec.ts).
    const start = ++at;
    while (at < text.length && at - start < 6) {
      const digit = text.charCodeAt(at) - ZERO;
      if (digit < 0 || digit > 9) break;
      if (at - start < 3) millisecond = millisecond * 10 + digit;
      at++;
    }
    digits = at - start;
    if (digits === 0) return undefined;
    for (let i = digits; i < 3; i++) millisecond *= 10;
  }
  if (!zoned) {
    return at === text.length ? new Date(year, month - 1, day, hour, minute, second, millisecond) : undefined;
  }
  const offset = readOffset(text, at);
  if (Number.isNaN(offset) || month < 1 || month > 12) return undefined;
  // Date.UTC(year, month - 1, day, hour, minute, second, millisecond), which costs as much as the rest of
  // the parse: the day, hours, minutes and seconds count linearly, as they do there, even past their range.
  const days = daysBeforeMonth(year, month) + day - 1;
  const date = new Date(days * DAY + hour * HOUR + minute * MINUTE + second * 1000 + millisecond - offset);
  // When the session's zone is UTC (the server's TimeZone setting), a valid text spells the instant as
  // toISOString would, but for the `T`, the milliseconds' three digits and the `Z`: noted on the Date, for the
  // answer that writes it (isoTimestamp). Any other zone leaves that to isoTimestamp's arithmetic.
  const valid = day >= 1 && day <= monthLength(year, month) && hour < 24 && minute < 60 && second < 60;
  if (offset === 0 && valid) {
    const fraction = digits >= 3 ? text.slice(19, 23) : `.${String(millisecond).padStart(3, '0')}`;
    noteIsoText(date, `${text.slice(0, 10)}T${text.slice(11, 19)}${fraction}Z`);
  }
  return date;
}

/** The days of `month` (1–12) of `year`, in the proleptic Gregorian calendar. */
function monthLength(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * The UTC offset in milliseconds that ends `text` from `at` (`±HH`, `±HH:MM` or `±HH:MM:SS`, as
 * PostgreSQL writes it in the session's TimeZone), or NaN for anything else.
 */
function readOffset(text: string, at: number): number {
  const sign = text.charCodeAt(at);
  if (sign !== 43 && sign !== 45) return NaN; // + -
  let seconds = twoDigits(text, at + 1) * 3600;
  at += 3;
  if (at < text.length) {
    if (text.charCodeAt(at) !== 58) return NaN;
    seconds += twoDigits(text, at + 1) * 60;
    at += 3;
  }
  if (at < text.length) {
    if (text.charCodeAt(at) !== 58) return NaN;
    seconds += twoDigits(text, at + 1);
    at += 3;
  }
  if (at !== text.length) return NaN;
  return (sign === 45 ? -seconds : seconds) * 1000;
}

/**
 * A `timestamp with time zone` as pg's own parser (postgres-date) gives it, the same instant, for less:
 * no regular expressions, no substrings. It reads only what PostgreSQL writes under DateStyle ISO
 * (`2024-05-01 12:30:00.123456+00`, any offset); anything else (`infinity`, BC, a year before 0100 or after
 * 9999, another DateStyle) goes to postgres-date as before.
 */
export function parseTimestamptz(text: string): unknown {
  return fastTimestamp(text, true) ?? slowTimestamptz(text);
}

/** A `timestamp` (without time zone) as postgres-date gives it: that wall-clock time in the process's zone. */
export function parseTimestamp(text: string): unknown {
  return fastTimestamp(text, false) ?? slowTimestamp(text);
}
