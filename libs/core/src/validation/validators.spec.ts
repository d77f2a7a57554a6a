import { isBcp47LanguageTag, isIanaTimeZone } from './validators.js';

describe('validators', () => {
  it.each(['en', 'fr', 'pt-BR', 'zh-Hant-TW', 'es-419'])('%s is a language tag', (tag) => expect(isBcp47LanguageTag(tag)).toBe(true));
  it.each(['', 'english', 'en_US', 'e', '12', 'en-', 42])('%s is not', (tag) => expect(isBcp47LanguageTag(tag)).toBe(false));
  it.each(['UTC', 'Europe/Paris', 'America/Sao_Paulo'])('%s is a time zone', (zone) => expect(isIanaTimeZone(zone)).toBe(true));
  it.each(['Mars/Olympus', '', 'Europe', null])('%s is not', (zone) => expect(isIanaTimeZone(zone)).toBe(false));
});
