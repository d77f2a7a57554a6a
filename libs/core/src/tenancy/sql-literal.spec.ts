import fc from 'fast-check';
import pg from 'pg';
import { sqlLiteral } from './request-transaction.js';

describe('sqlLiteral', () => {
  it('quotes a string exactly as the driver’s escapeLiteral does, with or without quotes and backslashes', () => {
    const risky = fc.stringMatching(/^[a-f0-9'\\\- é€"\n]{0,40}$/);
    fc.assert(
      fc.property(fc.oneof(fc.uuid(), fc.string(), risky), (value) => sqlLiteral(value) === pg.escapeLiteral(value)),
      { numRuns: 20_000 },
    );
    expect(sqlLiteral("it's")).toBe("'it''s'");
    expect(sqlLiteral('a\\b')).toBe(" E'a\\\\b'");
    expect(sqlLiteral('')).toBe("''");
  });

  it('writes NULL and the booleans as SQL does', () => {
    expect(sqlLiteral(null)).toBe('NULL');
    expect(sqlLiteral(true)).toBe('true');
    expect(sqlLiteral(false)).toBe('false');
  });
});
