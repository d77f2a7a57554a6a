import fc from 'fast-check';
import pg from 'pg';
import { MAX_ROW_BUILDERS, NamedStatementResult, rowBuilder } from './named-statements.js';
import { MAX_NAMED_STATEMENTS, statementName } from './raw-sql.js';

describe('statementName', () => {
  it('names a text the same every time, another text otherwise, and stops naming past the bound', () => {
    const first = statementName('SELECT $1::int');
    expect(statementName('SELECT $1::int')).toBe(first);
    expect(statementName('SELECT $1::text')).not.toBe(first);
    expect(first).toMatch(/^SELECT_\d+$/);
    expect(statementName(' with x AS (SELECT $1) SELECT * FROM x')).toMatch(/^WITH_\d+$/);
    const names = Array.from({ length: MAX_NAMED_STATEMENTS + 10 }, (_, index) => statementName(`SELECT ${index}, $1`));
    expect(new Set(names.filter(Boolean)).size).toBe(MAX_NAMED_STATEMENTS - 3);
    expect(names.slice(-10)).toEqual(Array(10).fill(undefined));
    // A text named before the bound was reached keeps its name.
    expect(statementName('SELECT $1::int')).toBe(first);
  });
});

describe('NamedStatementResult', () => {
  const field = (name: string, dataTypeID: number) =>
    ({ name, dataTypeID, format: 'text', tableID: 0, columnID: 0, dataTypeSize: -1, dataTypeModifier: -1 }) as const;
  type Parsed = NamedStatementResult & {
    _types: object;
    parseRow(values: (string | null)[]): Record<string, unknown>;
    _parsers: unknown[];
  };
  const result = (name: string, types: object) => {
    const made = new NamedStatementResult(name) as Parsed;
    made._types = types;
    return made;
  };

  it('takes the parsers and the empty row from the last run of the same columns, other columns afresh', () => {
    const types = new pg.TypeOverrides();
    const first = result('SELECT_1', types);
    first.addFields([field('n', 23), field('note', 25)]);
    const again = result('SELECT_1', types);
    again.addFields([field('n', 23), field('note', 25)]);
    expect(again._parsers).toBe(first._parsers);
    expect(again.parseRow(['41', null])).toEqual({ n: 41, note: null });
    // The same name with other columns (another table under the statement's text): its own parsers.
    const changed = result('SELECT_1', types);
    changed.addFields([field('n', 25), field('label', 25), field('at', 1184)]);
    expect(changed._parsers).not.toBe(first._parsers);
    expect(changed.parseRow(['41', 'x', '2026-11-27 10:00:00+00'])).toEqual({
      n: '41',
      label: 'x',
      at: new Date('2026-11-27T10:00:00Z'),
    });
    // Another connection's type parsers are its own.
    const other = new pg.TypeOverrides();
    other.setTypeParser(23, () => 'mine');
    const elsewhere = result('SELECT_1', other);
    elsewhere.addFields([field('n', 23), field('note', 25)]);
    expect(elsewhere.parseRow(['41', null])).toEqual({ n: 'mine', note: null });
  });

  it('refuses a row of another width than its columns as a changed result type (0A000), never misreads it', () => {
    const made = result('SELECT_2', new pg.TypeOverrides());
    made.addFields([field('n', 23), field('note', 25)]);
    for (const row of [['1'], ['1', 'x', 'extra']]) {
      const refusal = { code: '0A000', message: expect.stringMatching(/cached plan must not change result type/) };
      expect(() => made.parseRow(row)).toThrow(expect.objectContaining(refusal));
    }
    expect(made.parseRow(['1', 'x'])).toEqual({ n: 1, note: 'x' });
  });
});

describe('rowBuilder', () => {
  const field = (name: string, dataTypeID: number, format: 'text' | 'binary' = 'text') =>
    ({ name, dataTypeID, format, tableID: 0, columnID: 0, dataTypeSize: -1, dataTypeModifier: -1 }) as const;
  /** pg's own row: its Result, described by the same columns. */
  const pgRow = (fields: ReturnType<typeof field>[], texts: (string | null)[]) => {
    const result = new (pg.Result as unknown as new () => unknown)() as {
      addFields(f: unknown[]): void;
      parseRow(t: (string | null)[]): Record<string, unknown>;
      _parsers: ((text: string) => unknown)[];
    };
    result.addFields(fields);
    return { row: result.parseRow(texts), parsers: result._parsers };
  };
  /** A row as comparable data: its prototype, its keys in order, their values. */
  const gist = (row: Record<string, unknown>) => ({
    prototype: Object.getPrototypeOf(row) as unknown,
    entries: Object.entries(row),
  });

  it('makes the rows pg makes: keys in order, a repeated name’s last value, nulls, every parser', () => {
    const name = fc.oneof(
      fc.constantFrom('id', 'name', 'constructor', 'toString', '1', '0', 'a"b', "it's", 'a\\b', 'x\u2028y', 'ü', ''),
      fc.string({ maxLength: 6 }),
    );
    const column = fc.tuple(name, fc.constantFrom(23, 25, 16, 1184, 1009, 114, 1700));
    const text = (type: number) =>
      ({
        23: fc.integer().map(String),
        25: fc.string(),
        16: fc.constantFrom('t', 'f'),
        1184: fc.constant('2026-11-27 21:13:47.123456+00'),
        1009: fc.constant('{a,b,NULL}'),
        114: fc.constant('{"k":[1,2]}'),
        1700: fc.constant('12.50'),
      })[type as 23]!;
    const row = fc
      .array(column, { minLength: 1, maxLength: 8 })
      .filter((columns) => columns.every(([n]) => n !== '__proto__'))
      .chain((columns) =>
        fc.tuple(
          fc.constant(columns),
          fc.tuple(...columns.map(([, type]) => fc.option(text(type), { freq: 4 }))) as fc.Arbitrary<(string | null)[]>,
        ),
      );
    fc.assert(
      fc.property(row, ([columns, texts]) => {
        const fields = columns.map(([n, type]) => field(n, type));
        const expected = pgRow(fields, texts);
        const build = rowBuilder(fields)!;
        expect(build).toBeTypeOf('function');
        expect(gist(build(texts, expected.parsers))).toEqual(gist(expected.row));
      }),
      // Each new list of names makes a builder, and MAX_ROW_BUILDERS are kept: fewer runs than that.
      { numRuns: Math.min(600, MAX_ROW_BUILDERS / 2) },
    );
  });

  it('is one function per list of column names, and leaves binary columns and `__proto__` to pg', () => {
    const columns = [field('id', 23), field('note', 25)];
    expect(rowBuilder(columns)).toBe(rowBuilder([field('id', 20), field('note', 1043)]));
    expect(rowBuilder(columns)).not.toBe(rowBuilder([field('note', 25), field('id', 23)]));
    expect(rowBuilder([field('id', 23, 'binary')])).toBeUndefined();
    expect(rowBuilder([field('__proto__', 25)])).toBeUndefined();
    expect(rowBuilder([])).toBeUndefined();
  });

  it('makes a named statement’s rows, and pg’s way where the row does not fit its columns', () => {
    const types = new pg.TypeOverrides();
    const made = new NamedStatementResult('SELECT_77') as NamedStatementResult & {
      _types: object;
      parseRow(values: (string | null)[]): Record<string, unknown>;
    };
    made._types = types;
    made.addFields([field('n', 23), field('at', 1184), field('n', 25)]);
    expect(made.parseRow(['41', '2026-11-27 10:00:00+00', 'x'])).toEqual({
      n: 'x',
      at: new Date('2026-11-27T10:00:00Z'),
    });
    expect(Object.keys(made.parseRow(['41', null, null]))).toEqual(['n', 'at']);
  });
});
