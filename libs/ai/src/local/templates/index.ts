import { de } from './de.js';
import { en } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';
import { pt } from './pt.js';
import { primaryLanguage } from '../../providers/ai-provider.js';
import type { LocaleTemplates } from './types.js';

export * from './types.js';
export { en };

const BY_LANGUAGE: Readonly<Record<string, LocaleTemplates>> = { en, fr, es, de, pt };

/** The languages the templates write, as primary language subtags. */
export const LOCAL_LANGUAGES: readonly string[] = Object.freeze(Object.keys(BY_LANGUAGE));

/** Every language's templates, for recognising tone words written in any of them. */
export const ALL_TEMPLATES: readonly LocaleTemplates[] = Object.values(BY_LANGUAGE);

/**
 * The templates for a BCP 47 tag by its primary language (`pt-BR` and `pt-PT` → `pt`);
 * English for any language without templates (the functions refuse those before asking).
 */
export function templatesFor(language: string): LocaleTemplates {
  const primary = primaryLanguage(language);
  return Object.hasOwn(BY_LANGUAGE, primary) ? BY_LANGUAGE[primary] : en;
}
