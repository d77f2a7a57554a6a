import { normaliseHashtags } from '@app/social';
import { htmlToText, plainText, sanitizeArticleHtml, tidyLines } from '../content/html-sanitizer.js';
import {
  AiProviderError,
  type ArticleDraft,
  type InsightsDraft,
  type ProductDraft,
  type SocialContentDraft,
} from '../providers/ai-provider.js';

/**
 * The contract's value rules (listed in docs/architecture.md § AI credits and functions) applied
 * to whatever a provider answered, the same for every provider. What can be tidied is (whitespace,
 * `#` prefixes, duplicates, cents, markup in plain-text fields); what cannot is an invalid answer:
 * the caller is refunded and gets 502.
 *
 * Every field but the article's `content` is plain text and goes through `plainText`: a provider
 * echoes what the caller wrote (a topic, a product name), in whatever encoding, and the answer is
 * shown on pages, so no such field may carry markup, encoded or not.
 */

function invalid(what: string): AiProviderError {
  return new AiProviderError(`The AI provider's answer is unusable: ${what}`, 'invalid_answer');
}

/** A required plain-text field: markup-free, and not empty once the markup is gone. */
function text(value: unknown, field: string): string {
  const plain = typeof value === 'string' ? plainText(value) : '';
  if (!plain) throw invalid(`${field} is empty`);
  return plain;
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

/**
 * One hashtag as `#body` (whitespace removed), or '' when nothing is left: the social module's rule.
 * Removing whitespace can join pieces into markup (`< b >`, `& lt;`): such a tag is dropped.
 */
const toHashtag = (raw: string): string => {
  const tag = normaliseHashtags([plainText(raw)])[0] ?? '';
  return plainText(tag) === tag ? tag : '';
};

export function normalizeProduct(draft: ProductDraft): ProductDraft {
  const price = cents(Number(draft.price));
  const comparePrice = cents(Number(draft.compare_price));
  if (!Number.isFinite(price) || price <= 0) throw invalid('price is not a positive amount');
  if (!Number.isFinite(comparePrice) || comparePrice < price) throw invalid('compare_price is below price');
  const keywords = distinct(draft.seo_keywords, 'seo_keywords', plainText).slice(0, 10);
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
  // HTML, not plain text: sanitised, so that its markup is the safe subset.
  const content = typeof draft.content === 'string' ? sanitizeArticleHtml(draft.content) : '';
  if (!content) throw invalid('content is empty');
  if (!htmlToText(content).trim()) throw invalid('the article has no text');
  return {
    // Shown as headings and snippets: one space between words, no blank lines.
    title: tidyLines(text(draft.title, 'title')),
    content,
    excerpt: tidyLines(text(draft.excerpt, 'excerpt')),
    seo_title: tidyLines(text(draft.seo_title, 'seo_title')),
    seo_description: tidyLines(text(draft.seo_description, 'seo_description')),
  };
}

export function normalizeInsights(draft: InsightsDraft): InsightsDraft {
  const insights = {
    trending_topics: distinct(draft.trending_topics, 'trending_topics', plainText),
    popular_hashtags: distinct(draft.popular_hashtags, 'popular_hashtags', toHashtag),
    audience_sentiment: text(draft.audience_sentiment, 'audience_sentiment'),
    recommendations: distinct(draft.recommendations, 'recommendations', plainText),
  };
  if (!insights.trending_topics.length || !insights.popular_hashtags.length || !insights.recommendations.length) {
    throw invalid('an insights list is empty');
  }
  return insights;
}

/**
 * A social post draft as plain text: the text and each hashtag markup-free (hashtags left empty are
 * dropped). The rest of the post's rules (an empty text, fitting the platform) are the service's.
 */
export function normalizeSocialDraft(draft: SocialContentDraft): SocialContentDraft {
  return {
    ...draft,
    text: typeof draft.text === 'string' ? plainText(draft.text) : draft.text,
    hashtags: Array.isArray(draft.hashtags)
      ? draft.hashtags
          .filter((tag): tag is string => typeof tag === 'string')
          .map(toHashtag)
          .filter(Boolean)
      : draft.hashtags,
  };
}
