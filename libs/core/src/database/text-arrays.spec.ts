import fc from 'fast-check';
import pg from 'pg';
import { fastTextArray, parseTextArray, TEXT_ARRAY_OID } from './text-arrays.js';

const slow = (pg.types.getTypeParser as (oid: number, format: 'text') => (value: string) => unknown)(
  TEXT_ARRAY_OID,
  'text',
);

/** An element as PostgreSQL's array output writes it: quoted (with escapes) when it has to be. */
function element(value: string | null): string {
  if (value === null) return 'NULL';
  const plain = value !== '' && !/^null$/i.test(value) && !/[{}",\\\s]/.test(value);
  return plain ? value : `"${value.replace(/[\\"]/g, (char) => `\\${char}`)}"`;
}

const literal = (values: (string | null)[]) => `{${values.map(element).join(',')}}`;

describe('text arrays', () => {
  it('parses the arrays PostgreSQL writes as pg does, with or without the fast path', () => {
    const value = fc.oneof(
      fc.string(),
      fc.constantFrom('NULL', 'null', '', ' a', 'a,b', 'ü', '{x}', 'NUL'),
      fc.constant(null),
    );
    fc.assert(
      fc.property(fc.array(value, { maxLength: 8 }), (values) => {
        const text = literal(values);
        expect(parseTextArray(text)).toEqual(slow(text));
        expect(parseTextArray(text)).toEqual(values);
      }),
      { numRuns: 20_000 },
    );
  });

  it('reads any plain array as splitting it at its commas would', () => {
    const plain = fc.stringMatching(/^[^{}"\\]{0,30}$/);
    fc.assert(
      fc.property(plain, (inner) => {
        const split = inner === '' ? [] : inner.split(',').map((value) => (value === 'NULL' ? null : value));
        expect(fastTextArray(`{${inner}}`)).toEqual(split);
      }),
      { numRuns: 20_000 },
    );
  });

  it('takes the fast path for plain elements and leaves quoted, nested and bounded arrays to pg', () => {
    expect(fastTextArray('{linen,tote,eco-bag}')).toEqual(['linen', 'tote', 'eco-bag']);
    expect(fastTextArray('{}')).toEqual([]);
    expect(fastTextArray('{a,NULL}')).toEqual(['a', null]);
    for (const text of ['{"a b"}', '{a\\,b}', '{{a},{b}}', '[0:1]={a,b}', '', '{'])
      expect(fastTextArray(text)).toBeUndefined();
  });
});
