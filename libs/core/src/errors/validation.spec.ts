import { MAX_BODY_DEPTH, bodyShapeError } from './validation.js';

const nested = (depth: number): unknown => {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
};

describe('bodyShapeError', () => {
  it('passes ordinary bodies, however wide', () => {
    expect(
      bodyShapeError({ name: 'Linen', items: [{ product_id: 'x', quantity: 1 }], tags: Array(1000).fill('t') }),
    ).toBeNull();
    expect(bodyShapeError(nested(MAX_BODY_DEPTH))).toBeNull();
  });

  it('names the field holding a NUL character, in a value or a key', () => {
    expect(bodyShapeError({ items: [{ name: 'a\0b' }] })).toEqual({
      field: 'items.0.name',
      message: 'must not contain NUL (\\u0000) characters',
    });
    expect(bodyShapeError({ ['k\0']: 1 })).toMatchObject({ field: 'k\0' });
    expect(bodyShapeError('\0')).toMatchObject({ field: 'body' });
  });

  it('refuses unpaired UTF-16 surrogates, which JSON escapes can spell, and takes paired ones (emoji)', () => {
    const message = 'must be well-formed Unicode (no unpaired surrogate \\uD800-\\uDFFF)';
    expect(bodyShapeError(JSON.parse('{"email":"\\udfff x"}'))).toEqual({ field: 'email', message });
    expect(bodyShapeError(JSON.parse('{"tags":["ok","\\ud83d"]}'))).toEqual({ field: 'tags.1', message });
    expect(bodyShapeError(JSON.parse('{"name":"\\ud83d\\ude00 smile"}'))).toBeNull();
  });

  it(`refuses nesting deeper than ${MAX_BODY_DEPTH} levels, and stops walking there`, () => {
    expect(bodyShapeError(nested(MAX_BODY_DEPTH + 1))).toEqual({
      field: expect.stringMatching(/^a\.0\.a/),
      message: `is nested deeper than ${MAX_BODY_DEPTH} levels`,
    });
    // Far past what a recursive walk could survive, answered from the first levels.
    expect(bodyShapeError(nested(200_000))?.message).toBe(`is nested deeper than ${MAX_BODY_DEPTH} levels`);
  });
});
