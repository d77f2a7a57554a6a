import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import pg from 'pg';
import { isoTimestamp, noteIsoText } from '../time/iso-timestamp.js';
import { fastTimestamp, parseTimestamp, parseTimestamptz, TIMESTAMP_OID, TIMESTAMPTZ_OID } from './timestamps.js';
import { apiTypes } from './type-parsers.js';

// pg's own parsers (postgres-date), as every other connection of the process still has them.
const postgresDate = pg.types.getTypeParser(TIMESTAMPTZ_OID, 'text') as (text: string) => unknown;
const postgresDateLocal = pg.types.getTypeParser(TIMESTAMP_OID, 'text') as (text: string) => unknown;

/** The same answer: the same instant for a Date (an invalid one included), the same value otherwise. */
function same(actual: unknown, expected: unknown): boolean {
  if (expected instanceof Date) return actual instanceof Date && Object.is(actual.getTime(), expected.getTime());
  return Object.is(actual, expected);
}

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** What PostgreSQL writes under DateStyle ISO: the years are mostly four digits, sometimes not (0–99, 5 digits, BC). */
const year = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1900, max: 2100 }) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 9999 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 99 }) },
  { weight: 1, arbitrary: fc.integer({ min: 10000, max: 294276 }) },
);
const fraction = fc.oneof(
  fc.constant(''),
  fc
    .integer({ min: 1, max: 6 })
    .chain((digits) => fc.integer({ min: 0, max: 10 ** digits - 1 }).map((value) => `.${pad(value, digits)}`)),
);
const dateTime = fc
  .record({
    year,
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 31 }),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
    second: fc.integer({ min: 0, max: 59 }),
    fraction,
  })
  .map(
    ({ year, month, day, hour, minute, second, fraction }) =>
      `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)} ${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}${fraction}`,
  );
/** The session TimeZone's offset as PostgreSQL writes it: +HH, +HH:MM, +HH:MM:SS (local mean time before 1900). */
const offset = fc.oneof(
  { weight: 4, arbitrary: fc.constant('+00') },
  {
    weight: 6,
    arbitrary: fc
      .record({
        sign: fc.constantFrom('+', '-'),
        hours: fc.integer({ min: 0, max: 15 }),
        minutes: fc.constantFrom(0, 0, 15, 30, 45, 53),
        seconds: fc.constantFrom(0, 0, 0, 28, 59),
      })
      .map(({ sign, hours, minutes, seconds }) => {
        const tail = seconds ? `:${pad(minutes, 2)}:${pad(seconds, 2)}` : minutes ? `:${pad(minutes, 2)}` : '';
        return `${sign}${pad(hours, 2)}${tail}`;
      }),
  },
);
const bc = fc.oneof({ weight: 9, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constant(' BC') });
const timestamptz = fc.tuple(dateTime, offset, bc).map(([at, zone, era]) => `${at}${zone}${era}`);
const timestamp = fc.tuple(dateTime, bc).map(([at, era]) => `${at}${era}`);
const special = fc.constantFrom('infinity', '-infinity');
/** Near misses: what the fast path must hand on rather than misread (a character dropped, changed or added). */
const mangled = (values: fc.Arbitrary<string>) =>
  fc
    .tuple(values, fc.nat(), fc.constantFrom('', '0', '9', ' ', ':', '-', '+', '.', 'Z', 'x'), fc.boolean())
    .map(([text, at, char, replace]) => {
      const i = at % (text.length + 1);
      return text.slice(0, i) + char + text.slice(replace ? i + 1 : i);
    });

describe('timestamp parsers', () => {
  it('parse every fraction of 1 to 6 digits to the milliseconds postgres-date gives', () => {
    for (let digits = 1; digits <= 6; digits++) {
      for (let value = 0; value < 10 ** digits; value++) {
        const text = `2024-05-01 12:30:00.${pad(value, digits)}+00`;
        if (!same(parseTimestamptz(text), postgresDate(text)))
          expect(parseTimestamptz(text)).toEqual(postgresDate(text));
      }
    }
  });

  it('count the days of every month of the years 0100 to 9999 as postgres-date does', () => {
    for (let year = 100; year <= 9999; year++) {
      for (let month = 1; month <= 12; month++) {
        for (const day of ['01', '28', '29', '31']) {
          const text = `${pad(year, 4)}-${pad(month, 2)}-${day} 23:59:59.999+00`;
          if (!same(parseTimestamptz(text), postgresDate(text)))
            expect(parseTimestamptz(text)).toEqual(postgresDate(text));
        }
      }
    }
  });

  it('read a timestamptz as postgres-date does, whatever PostgreSQL writes', () => {
    fc.assert(
      fc.property(fc.oneof(timestamptz, special), (text) => same(parseTimestamptz(text), postgresDate(text))),
      { numRuns: 20_000 },
    );
  });

  it('read a timestamp without time zone as postgres-date does (local time)', () => {
    fc.assert(
      fc.property(fc.oneof(timestamp, special), (text) => same(parseTimestamp(text), postgresDateLocal(text))),
      { numRuns: 20_000 },
    );
  });

  it('take the fast path for every value of a year 0100 to 9999 that PostgreSQL writes', () => {
    const usual = (values: fc.Arbitrary<string>) =>
      values.filter((text) => !text.endsWith(' BC') && /^\d{4}-/.test(text) && !text.startsWith('00'));
    fc.assert(fc.property(usual(timestamptz), (text) => fastTimestamp(text, true) instanceof Date));
    fc.assert(fc.property(usual(timestamp), (text) => fastTimestamp(text, false) instanceof Date));
  });

  it('hand anything else to postgres-date, whose answer stands', () => {
    fc.assert(
      fc.property(fc.oneof(mangled(timestamptz), fc.string()), (text) =>
        same(parseTimestamptz(text), postgresDate(text)),
      ),
      { numRuns: 20_000 },
    );
    fc.assert(
      fc.property(fc.oneof(mangled(timestamp), fc.string()), (text) =>
        same(parseTimestamp(text), postgresDateLocal(text)),
      ),
      { numRuns: 20_000 },
    );
  });

  it('note the ISO text of what they read in UTC, the same string toISOString writes (isoTimestamp)', () => {
    /** isoTimestamp of what the parser read, and toISOString of postgres-date's, for a valid instant. */
    const noted = (text: string) => {
      const date = parseTimestamptz(text);
      const expected = postgresDate(text);
      if (!(date instanceof Date) || !(expected instanceof Date) || Number.isNaN(expected.getTime())) return undefined;
      return { iso: isoTimestamp(date), expected: expected.toISOString() };
    };
    fc.assert(
      fc.property(fc.oneof(timestamptz, mangled(timestamptz)), (text) => {
        const read = noted(text);
        return read === undefined || read.iso === read.expected;
      }),
      { numRuns: 50_000 },
    );
    // Every fraction width, the edges of months (leap years included) and of the day.
    for (const text of [
      '2026-11-27 21:13:47+00',
      '2026-11-27 21:13:47.5+00',
      '2026-11-27 21:13:47.05+00',
      '2026-11-27 21:13:47.123+00',
      '2026-11-27 21:13:47.123999+00',
      '2024-02-29 23:59:59.999999+00',
      '2100-02-28 00:00:00+00',
      '0100-01-01 00:00:00+00',
      '9999-12-31 23:59:59.999+00',
    ]) {
      expect(noted(text)?.iso).toBe((postgresDate(text) as Date).toISOString());
      expect(noted(text)?.iso).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
  });

  it('note no ISO text for what the text does not spell as an instant: out of range, or another zone', () => {
    // Day 31 of February, hour 24: Date counts on (as postgres-date), and the answer is its instant's.
    for (const text of ['2025-02-31 10:00:00+00', '2025-01-01 24:00:00+00', '2025-01-00 10:00:00+00']) {
      const date = parseTimestamptz(text) as Date;
      expect(isoTimestamp(date)).toBe((postgresDate(text) as Date).toISOString());
      expect(isoTimestamp(date).slice(0, 10)).not.toBe(text.slice(0, 10));
    }
    const zoned = parseTimestamptz('2026-11-27 21:13:47.123+01') as Date;
    expect(isoTimestamp(zoned)).toBe('2026-11-27T20:13:47.123Z');
  });

  it('drop the noted text once the Date is set to another instant, and show it nowhere', () => {
    const date = parseTimestamptz('2026-11-27 21:13:47.123456+00') as Date;
    expect(isoTimestamp(date)).toBe('2026-11-27T21:13:47.123Z');
    date.setTime(Date.UTC(2020, 0, 2, 3, 4, 5, 6));
    expect(isoTimestamp(date)).toBe('2020-01-02T03:04:05.006Z');
    // Private to the Date: no key, no symbol, the same under deep equality as any Date of the instant.
    expect(Reflect.ownKeys(date)).toEqual([]);
    expect(isDeepStrictEqual(date, new Date(Date.UTC(2020, 0, 2, 3, 4, 5, 6)))).toBe(true);
    expect(JSON.stringify({ date })).toBe('{"date":"2020-01-02T03:04:05.006Z"}');
    // Noted again (the same Date through another parse path, say): the new text, no TypeError.
    noteIsoText(date, '2020-01-02T03:04:05.006Z');
    expect(isoTimestamp(date)).toBe('2020-01-02T03:04:05.006Z');
    date.setTime(0);
    expect(isoTimestamp(date)).toBe('1970-01-01T00:00:00.000Z');
  });

  it('are the pools’ parsers for the two types, and pg’s for every other', () => {
    expect(apiTypes.getTypeParser(TIMESTAMPTZ_OID, 'text')).toBe(parseTimestamptz);
    expect(apiTypes.getTypeParser(TIMESTAMP_OID)).toBe(parseTimestamp);
    expect(apiTypes.getTypeParser(TIMESTAMPTZ_OID, 'binary')).toBe(pg.types.getTypeParser(TIMESTAMPTZ_OID, 'binary'));
    for (const oid of [16, 20, 25, 1082, 1185, 3802]) {
      expect(apiTypes.getTypeParser(oid, 'text')).toBe(pg.types.getTypeParser(oid, 'text'));
    }
  });
});
