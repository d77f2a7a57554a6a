import { fitText, isSocialPlatform, normaliseHashtags, socialPlatformDefinition } from '@app/social';
import { htmlToText } from '../content/html-sanitizer.js';
import type {
  InsightsDraft,
  InsightsInput,
} from '../functions/research-social-context/research-social-context.task.js';
import type {
  SocialContentDraft,
  SocialContentInput,
} from '../functions/social-generate-content/social-generate-content.task.js';
import type { Seed } from './seed.js';
import { ALL_TEMPLATES, TONE_KINDS, type LocaleTemplates, type ToneKind } from './templates/index.js';
import { clip, tidy } from './text.js';

/** The offline social post and social research. */

const DEFAULT_HOUR = 12;

const MAX_HASHTAGS = 8;

/** Lower case without accents, for matching words written with or without them. */
const fold = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/** The tone kind named by a word of `tone` in any template language; otherwise one chosen by hash. */
export function toneKind(tone: string, seed: Seed): ToneKind {
  const folded = ` ${fold(tone).replace(/[^\p{L}\p{N}]+/gu, ' ')} `;
  for (const kind of TONE_KINDS) {
    for (const t of ALL_TEMPLATES) {
      if (t.social.toneWords[kind].some((word) => folded.includes(` ${fold(word)} `))) return kind;
    }
  }
  return seed.pick('tone', TONE_KINDS);
}

/** A hashtag body: letters, digits and underscores of `text`, joined. */
function hashtagBody(text: string): string {
  return text
    .normalize('NFC')
    .toLocaleLowerCase()
    .replace(/[^\p{L}\p{N}_]+/gu, '');
}

function formatPrice(price: number, currency: string, language: string, fallbackLanguage: string): string {
  for (const locale of [language, fallbackLanguage]) {
    try {
      return new Intl.NumberFormat(locale, { style: 'currency', currency }).format(price);
    } catch {
      // An unknown tag or currency code: try the next, then plain digits.
    }
  }
  return `${price.toFixed(2)} ${currency}`;
}

export function buildSocialContent(input: SocialContentInput, t: LocaleTemplates, seed: Seed): SocialContentDraft {
  const { product } = input;
  const kind = toneKind(input.tone, seed);
  // No `#` in the text: hashtags are the service's to append.
  const clean = (text: string) => tidy(text.replace(/#/g, ''));
  const name = clean(product.name);
  const category = product.category ? clean(product.category) : null;
  const hook = seed.pick('hook', t.social.hooks[kind])({ name, category });
  const description = product.description
    ? clip(clean(htmlToText(product.description)).split(/(?<=[.!?])\s/u)[0], 160)
    : '';
  const price = t.social.priceLine(formatPrice(product.price, product.currency, input.language, t.language));
  const call = t.social.calls[kind];

  const platform = isSocialPlatform(input.platform) ? input.platform : null;
  const fits = (text: string) =>
    platform ? fitText(platform, text, input.textLimit) === text : Array.from(text).length <= input.textLimit;
  // From the fullest post to the barest; the first that fits wins, else the barest is shortened.
  const variants = [
    [
      hook,
      [description, category ? t.social.categoryLine(category) : ''].filter(Boolean).join(' '),
      `${price} ${call}`,
    ],
    [hook, description, `${price} ${call}`],
    [hook, `${price} ${call}`],
    [hook, price],
  ].map((parts) => parts.filter(Boolean).join('\n\n'));
  let text = variants.find(fits) ?? variants[variants.length - 1];
  if (!fits(text)) text = platform ? fitText(platform, text, input.textLimit) : clip(text, input.textLimit);

  return {
    text,
    hashtags: productHashtags(input, t, seed),
    // When the platform's audience is most active, in the store's local time (its registry entry says).
    best_hour: platform ? socialPlatformDefinition(platform).audience.peakHour : DEFAULT_HOUR,
  };
}

function productHashtags(input: SocialContentInput, t: LocaleTemplates, seed: Seed): string[] {
  const { product } = input;
  const nameWords = product.name.split(/\s+/).filter((word) => hashtagBody(word).length >= 3);
  const candidates = [
    product.category ?? '',
    ...product.seo_keywords.slice(0, 4),
    hashtagBody(product.name).length <= 24 ? product.name : '',
    ...seed.shuffle('name-words', nameWords).slice(0, 2),
    ...t.social.fallbackHashtags,
  ]
    .map(hashtagBody)
    .filter((body) => body.length >= 2 && body.length <= 30);
  // The language's fallback tags come last, so at least 3 remain whatever the product gives.
  return normaliseHashtags(candidates).slice(0, MAX_HASHTAGS);
}

// ——— Research (English: the request carries no language). What is said of each platform is its registry entry's. ———

const STOP_WORDS = new Set(
  'a an and are as at be but by for from how in into is it its ' +
    'of on or our the their this to what when why with your you'.split(' '),
);

const SENTIMENTS = ['mostly positive', 'positive', 'enthusiastic', 'curious', 'mixed', 'neutral'] as const;

const GENERAL_TOPICS: readonly ((query: string, keyword: string) => string)[] = [
  (query) => `${query} ideas`,
  (query) => `${query} on a budget`,
  (query) => `sustainable ${query}`,
  (query) => `behind the scenes of ${query}`,
  (query) => `${query} trends this season`,
  (_query, keyword) => `${keyword} tips`,
  (query) => `${query} for beginners`,
  (query) => `${query} gift ideas`,
];

const GENERAL_ADVICE: readonly ((query: string) => string)[] = [
  () => 'Post at the same times each week so your audience knows when to expect you.',
  () => 'Answer comments within a few hours: early replies lift reach.',
  (query) => `Turn your best-performing post about ${query} into a new format.`,
  () => 'End every post with one clear call to action.',
  () => 'Share customer photos and reviews: they earn more trust than adverts.',
];

const GENERAL_HASHTAGS = ['smallbusiness', 'shopsmall', 'newin', 'handmade', 'supportlocal'];

const doubledWord = (text: string) => /(^|\s)(\S+)\s+\2(\s|$)/iu.test(text);

export function buildInsights(input: InsightsInput, seed: Seed): InsightsDraft {
  // Long queries would make every topic a paragraph: topics and advice use the first 60 characters.
  const query = clip(input.query, 60).toLowerCase() || 'your products';
  const platforms = [...new Set(input.platforms.filter(isSocialPlatform))];
  const keywords = [
    ...new Set(query.split(/[^\p{L}\p{N}]+/u).filter((word) => word.length >= 3 && !STOP_WORDS.has(word))),
  ];
  const keyword = keywords[0] ?? query;

  const topics = [
    ...new Set([
      ...platforms.map((platform) => socialPlatformDefinition(platform).audience.topic(query)),
      ...seed
        .shuffle('topics', GENERAL_TOPICS)
        .map((topic) => topic(query, keyword))
        // "sustainable sustainable sneakers": a template that doubles a word of the query is skipped.
        .filter((topic) => doubledWord(query) || !doubledWord(topic)),
    ]),
  ];
  // 3–6 topics, those of the requested platforms first.
  const trending = seed.shuffle('topic-order', topics.slice(0, 3 + seed.int('topic-count', 4)));

  const tags = normaliseHashtags(
    [
      ...keywords.slice(0, 3),
      keywords.length > 1 ? keywords.join('') : '',
      `${keyword}tips`,
      `${keyword}ideas`,
      ...platforms.map((platform) => socialPlatformDefinition(platform).audience.hashtag),
      ...seed.shuffle('general-tags', GENERAL_HASHTAGS),
    ]
      .map(hashtagBody)
      .filter((body) => body.length >= 2 && body.length <= 30),
  );
  const tagCount = 5 + seed.int('tag-count', 6);

  const advice = platforms.map((platform) => socialPlatformDefinition(platform).audience.advice(query));
  const wanted = Math.min(6, Math.max(3, advice.length + 1));
  for (const general of seed.shuffle('advice', GENERAL_ADVICE)) {
    if (advice.length >= wanted) break;
    advice.push(general(query));
  }

  return {
    trending_topics: trending,
    popular_hashtags: tags.slice(0, tagCount),
    audience_sentiment: seed.pick('sentiment', SENTIMENTS),
    recommendations: advice,
  };
}
