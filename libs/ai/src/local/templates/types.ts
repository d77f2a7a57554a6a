/**
 * What one language gives the offline provider. Every list has the same length and order in every
 * language, so a choice made by index (the product noun, the collection name) names the same thing
 * in the requested language and in English (`name_en`).
 */

export const COLOUR_NAMES = [
  'black',
  'white',
  'grey',
  'red',
  'orange',
  'yellow',
  'green',
  'teal',
  'blue',
  'navy',
  'purple',
  'pink',
  'brown',
  'beige',
] as const;
export type ColourName = (typeof COLOUR_NAMES)[number];

export const CATEGORY_KEYS = ['home_decor', 'apparel', 'accessories', 'art_prints', 'stationery', 'kitchen'] as const;
export type CategoryKey = (typeof CATEGORY_KEYS)[number];

export type Orientation = 'landscape' | 'portrait' | 'square';
export type Brightness = 'dark' | 'light' | 'balanced';

export const SECTION_KINDS = ['intro', 'why', 'basics', 'steps', 'tips', 'mistakes', 'examples', 'conclusion'] as const;
export type SectionKind = (typeof SECTION_KINDS)[number];

export const TONE_KINDS = ['friendly', 'professional', 'playful', 'luxurious', 'urgent', 'calm'] as const;
export type ToneKind = (typeof TONE_KINDS)[number];

/** Three of anything, so every language offers the same choices. */
export type Three<T> = readonly [T, T, T];

export interface ProductFacts {
  /** The product name, as built by `productName`. */
  name: string;
  /** Localised colour names, most dominant first (may be empty). */
  colours: string[];
  orientation: Orientation;
  /** Proportions such as `3:2`. */
  ratio: string;
  brightness: Brightness;
  category: string;
}

export interface ArticleVars {
  topic: string;
  tone: string;
}

type Sentence = (vars: ArticleVars) => string;

export interface ArticleTemplates {
  titles: Three<Sentence>;
  headings: Record<SectionKind, Sentence>;
  /** The article's first sentence: what it covers, in which tone. */
  intro: Sentence;
  /**
   * Sentence openings (a clause ending before a comma) and sentence endings (a main clause, lower
   * case, no full stop): any opening combines with any ending, so 10 × 14 sentences exist.
   */
  openers: readonly Sentence[];
  claims: readonly Sentence[];
  tipsIntro: Sentence;
  /** List items, full sentences. */
  tips: readonly Sentence[];
  conclusion: Sentence;
  seoDescription: Sentence;
}

export interface SocialProductVars {
  name: string;
  category: string | null;
}

export interface SocialTemplates {
  /** The post's first line, per tone. */
  hooks: Record<ToneKind, readonly ((vars: SocialProductVars) => string)[]>;
  categoryLine: (category: string) => string;
  priceLine: (price: string) => string;
  calls: Record<ToneKind, string>;
  /** Words for tone, in this language, recognised in the free-text `tone` besides the English ones. */
  toneWords: Record<ToneKind, readonly string[]>;
  /** Hashtags (without `#`) used when the product gives too few. */
  fallbackHashtags: readonly string[];
}

export interface LocaleTemplates {
  language: 'en' | 'fr' | 'es' | 'de' | 'pt';
  /** `a, b and c` in this language. */
  list(items: readonly string[]): string;
  colours: Record<ColourName, string>;
  /** Said when an image has no visible colour (wholly transparent). */
  neutralTones: string;
  categories: Record<CategoryKey, string>;
  nouns: Record<CategoryKey, Three<string>>;
  /** Collection names given to generated products; 8, in the same order everywhere. */
  collections: readonly string[];
  productName(noun: string, collection: string, colour: string | null): string;
  /** 2–3 sentences. */
  productDescription(facts: ProductFacts): string;
  /** Generic SEO keywords, lower case, to complete the list. */
  keywordExtras: readonly string[];
  article: ArticleTemplates;
  social: SocialTemplates;
}
