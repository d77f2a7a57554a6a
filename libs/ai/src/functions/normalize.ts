import { normaliseHashtags } from '@app/social';
import { sanitizeArticleHtml, htmlToText } from '../content/html-sanitizer.js';
import { AiProviderError, type ArticleDraft, type InsightsDraft, type ProductDraft } from '../providers/ai-provider.js';

/**
 * The contract's value rules (API.md §3) applied to whatever a provider answered, the same for
 * every provider. What can be tidied is (whitespace, `#` prefixes, duplicates, cents); what cannot
 * is an invalid answer: the caller is refunded and gets 502.
 */

function invalid(what: string): AiProviderError {
  return new AiProviderError(`The AI provider's answer is unusable: ${what}`, 'invalid_answer');
}

function text(value: unknown, field: string): string {
  if (typeof value !== 'string' || !value.trim()) throw invalid(`${field} is empty`);
  return value.trim();
}

function distinct(items: unknown, field: string, tidy: (item: string) => string): string[] {
  if (!Array.isArray(items)) throw invalid(`${field} is not a list`);
  const seen = new Set<string>();
  const out: string[] = [];
  for (const item of items) {
    if (typeof item !== 'string') continue;
    const value = tidy(item.trim());
    if (value && !seen.has(value.toLowerCase())) {
      seen.add(value.toLowerCase());
      out.push(value);
    }
  }
  return out;
}

const cents = (value: number) => Math.round(value * 100) / 100;

/** One hashtag as `#body` (whitespace removed), or '' when nothing is left: the social module's rule. */
const toHashtag = (raw: string): string => normaliseHashtags([raw])[0] ?? '';

export function normalizeProduct(draft: ProductDraft): ProductDraft {
  const price = cents(Number(draft.price));
  const comparePrice = cents(Number(draft.compare_price));
  if (!Number.isFinite(price) || price <= 0) throw invalid('price is not a positive amount');
  if (!Number.isFinite(comparePrice) || comparePrice < price) throw invalid('compare_price is below price');
  const keywords = distinct(draft.seo_keywords, 'seo_keywords', (item) => item).slice(0, 10);
  if (keywords.length < 3) throw invalid('fewer than 3 seo_keywords');
  return {
    name: text(draft.name, 'name'),
    name_en: text(draft.name_en, 'name_en'),
    description: text(draft.description, 'description'),
    price,
    compare_price: comparePrice,
    category: text(draft.category, 'category'),
    seo_keywords: keywords,
  };
}

export function normalizeArticle(draft: ArticleDraft): ArticleDraft {
  const content = sanitizeArticleHtml(text(draft.content, 'content'));
  if (!htmlToText(content).trim()) throw invalid('the article has no text');
  return {
    title: htmlToText(text(draft.title, 'title')).trim(),
    content,
    excerpt: htmlToText(text(draft.excerpt, 'excerpt')).trim(),
    seo_title: htmlToText(text(draft.seo_title, 'seo_title')).trim(),
    seo_description: htmlToText(text(draft.seo_description, 'seo_description')).trim(),
  };
}

export function normalizeInsights(draft: InsightsDraft): InsightsDraft {
  const insights = {
    trending_topics: distinct(draft.trending_topics, 'trending_topics', (item) => item),
    popular_hashtags: distinct(draft.popular_hashtags, 'popular_hashtags', toHashtag),
    audience_sentiment: text(draft.audience_sentiment, 'audience_sentiment'),
    recommendations: distinct(draft.recommendations, 'recommendations', (item) => item),
  };
  if (!insights.trending_topics.length || !insights.popular_hashtags.length || !insights.recommendations.length) {
    throw invalid('an insights list is empty');
  }
  return insights;
}
