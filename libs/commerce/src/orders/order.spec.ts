import fc from 'fast-check';
import { fromCents, toCents } from './order.js';

describe('order money in cents', () => {
  it('reads NUMERIC(12,2) strings exactly', () => {
    expect(toCents('12.50')).toBe(1250n);
    expect(toCents('0.10')).toBe(10n);
    expect(toCents('0.1')).toBe(10n);
    expect(toCents('7')).toBe(700n);
    expect(toCents('9999999999.99')).toBe(999999999999n);
    for (const bad of ['', '-1.00', '1.234', 'abc', '1e3']) expect(() => toCents(bad), bad).toThrow();
  });

  it('writes cents as a NUMERIC literal with two decimals', () => {
    expect(fromCents(2510n)).toBe('25.10');
    expect(fromCents(5n)).toBe('0.05');
    expect(fromCents(0n)).toBe('0.00');
  });

  it('round-trips any amount, and sums of lines match the decimal arithmetic of PostgreSQL', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 99_999_999_999_999n }), (cents) => {
        expect(toCents(fromCents(cents))).toBe(cents);
        expect(fromCents(cents)).toMatch(/^\d+\.\d{2}$/);
      }),
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 99_999 }), fc.integer({ min: 1, max: 10_000 })), {
          maxLength: 100,
        }),
        (lines) => {
          const total = lines.reduce(
            (sum, [price, quantity]) => sum + toCents(fromCents(BigInt(price))) * BigInt(quantity),
            0n,
          );
          expect(total).toBe(BigInt(lines.reduce((sum, [price, quantity]) => sum + price * quantity, 0)));
        },
      ),
    );
  });
});
