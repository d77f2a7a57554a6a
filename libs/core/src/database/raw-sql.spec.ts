import pg from 'pg';
import { MAX_NAMED_STATEMENTS, NamedStatementResult, statementName } from './raw-sql.js';

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
});
