import { isBcp47LanguageTag, isIanaTimeZone, isMoneyAmount } from './validators.js';

describe('validators', () => {
  it.each(['en', 'fr', 'pt-BR', 'zh-Hant-TW', 'es-419'])('%s is a language tag', (tag) =>
    expect(isBcp47LanguageTag(tag)).toBe(true),
  );
  it.each(['', 'english', 'en_US', 'e', '12', 'en-', 42])('%s is not', (tag) =>
    expect(isBcp47LanguageTag(tag)).toBe(false),
  );
  it.each(['UTC', 'Europe/Paris', 'America/Sao_Paulo'])('%s is a time zone', (zone) =>
    expect(isIanaTimeZone(zone)).toBe(true),
  );
  it.each(['Mars/Olympus', '', 'Europe', null])('%s is not', (zone) => expect(isIanaTimeZone(zone)).toBe(false));
  it.each([0, 24.9, 0.01, 10, 9_999_999_999.99])('%s is a money amount', (amount) =>
    expect(isMoneyAmount(amount)).toBe(true),
  );
  it.each([1.005, 0.1 + 0.2, 1e-7, -1e-323, Number.NaN, Infinity, '10', null])('%s is not', (amount) =>
    expect(isMoneyAmount(amount)).toBe(false),
  );
});
