/**
 * What every AI provider does, whichever model sits behind it. Providers produce the
 * content only: charging, store access, idempotency, HTML sanitising, fitting text to a platform and
 * the suggested publishing time are the AiService's, the same for every provider.
 */

/** The five charged functions, by their route names (billing keeps their costs and limits). */
export { AI_FUNCTIONS, type AiFunction } from '@app/billing';

export const ARTICLE_LENGTHS = ['short', 'medium', 'long'] as const;
export type ArticleLength = (typeof ARTICLE_LENGTHS)[number];

/** A fetched image, decoded: what the product generator may look at. */
export interface ImageFacts {
  /** The raw bytes as fetched (vision models get them as a data URL). */
  bytes: Buffer;
  /** `image/jpeg`, `image/png`, `image/webp`, `image/gif` or `image/avif`. */
  mime: string;
  /** `jpeg`, `png`, `webp`, `gif` or `avif`. */
  format: string;
  width: number;
  height: number;
  /** Up to 5 dominant colours, most dominant first, as lower-case `#rrggbb`. */
  dominantColors: string[];
  /** 0 (black) … 1 (white), the mean perceived lightness. */
  lightness: number;
  hasAlpha: boolean;
}

export interface ProductInput {
  image: ImageFacts;
  /** BCP 47 tag, as sent (`en`, `fr`, `pt-BR`). */
  language: string;
  /** The store's ISO 4217 currency, for price suggestions. */
  currency: string;
}

/** Generated product fields (the seed's "Generated product" less `ai_credits_used`). */
export interface ProductDraft {
  name: string;
  name_en: string;
  description: string;
  /** Positive, at most 2 decimals. */
  price: number;
  /** >= price, at most 2 decimals. */
  compare_price: number;
  category: string;
  /** 3–10 items. */
  seo_keywords: string[];
}

export interface CoverInput {
  title: string;
  style: string;
  /** 1–5 colours, `#RGB` or `#RRGGBB` as sent. */
  colors: string[];
}

/** An image in any format sharp reads; the service turns it into the stored 1200×630 PNG. */
export interface CoverImage {
  bytes: Buffer;
}

export interface ArticleInput {
  topic: string;
  tone: string;
  length: ArticleLength;
  language: string;
}

/** The seed's "Generated article". `content` is HTML; the service sanitises it before answering. */
export interface ArticleDraft {
  title: string;
  content: string;
  excerpt: string;
  seo_title: string;
  seo_description: string;
}

export interface InsightsInput {
  query: string;
  /** Platform ids (`instagram`, `facebook`, `x`, `tiktok`, `threads`, `youtube`). */
  platforms: string[];
}

/** The seed's "Social insights". */
export interface InsightsDraft {
  trending_topics: string[];
  popular_hashtags: string[];
  audience_sentiment: string;
  recommendations: string[];
}

export interface SocialProduct {
  name: string;
  description: string | null;
  price: number;
  currency: string;
  category: string | null;
  seo_keywords: string[];
}

export interface SocialContentInput {
  product: SocialProduct;
  platform: string;
  tone: string;
  language: string;
  /** The platform's text limit in its own units (X: weighted characters); the service enforces it too. */
  textLimit: number;
}

export interface SocialContentDraft {
  /** The post text without the hashtags (the service appends them when they fit). */
  text: string;
  /** Each begins with `#`. */
  hashtags: string[];
  /** The hour of day (0–23, store local time) the provider suggests posting at. */
  best_hour: number;
}

/**
 * The provider failed or answered something unusable: the caller is refunded and gets 502
 * UPSTREAM_FAILED with `message` (never the provider's raw answer, which may echo secrets).
 */
export class AiProviderError extends Error {
  constructor(
    message: string,
    readonly reason: 'timeout' | 'unavailable' | 'rate_limited' | 'invalid_answer' | 'refused',
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'AiProviderError';
  }
}

export interface AiProvider {
  /** `local` or `openai`. */
  readonly id: string;
  generateProduct(input: ProductInput, signal?: AbortSignal): Promise<ProductDraft>;
  generateCover(input: CoverInput, signal?: AbortSignal): Promise<CoverImage>;
  generateArticle(input: ArticleInput, signal?: AbortSignal): Promise<ArticleDraft>;
  researchSocialContext(input: InsightsInput, signal?: AbortSignal): Promise<InsightsDraft>;
  generateSocialContent(input: SocialContentInput, signal?: AbortSignal): Promise<SocialContentDraft>;
}

/** Nest injection token of the configured provider. */
export const AI_PROVIDER = Symbol('AI_PROVIDER');
