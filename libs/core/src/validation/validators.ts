import { registerDecorator, type ValidationOptions } from 'class-validator';

const BCP47 = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

export function isBcp47LanguageTag(value: unknown): value is string {
  if (typeof value !== 'string' || !BCP47.test(value)) return false;
  try {
    return Intl.getCanonicalLocales(value).length === 1;
  } catch {
    return false;
  }
}

export function isIanaTimeZone(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

function rule(name: string, test: (value: unknown) => boolean, message: string) {
  return (options?: ValidationOptions) =>
    (target: object, propertyName: string): void =>
      registerDecorator({
        name,
        target: target.constructor,
        propertyName,
        options: { message, ...options },
        validator: { validate: test },
      });
}

/** A BCP 47 language tag such as `en`, `fr` or `pt-BR`. */
export const IsLanguageTag = rule(
  'isLanguageTag',
  isBcp47LanguageTag,
  '$property must be a BCP 47 language tag such as en, fr or pt-BR',
);

/** An IANA time zone such as `UTC` or `Europe/Paris`. */
export const IsTimeZone = rule(
  'isTimeZone',
  isIanaTimeZone,
  '$property must be an IANA time zone such as UTC or Europe/Paris',
);

/**
 * A finite number with at most 2 decimals. Written here rather than with IsNumber's maxDecimalPlaces,
 * which reads the decimals from the number's text and throws on exponent forms such as 1e-7.
 */
export function isMoneyAmount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && Number(value.toFixed(2)) === value;
}

/** A finite number with at most 2 decimals (money is a JSON number with at most 2 decimals). */
export const IsMoney = rule('isMoney', isMoneyAmount, '$property must be a number with at most 2 decimals');
