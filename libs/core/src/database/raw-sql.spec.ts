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
