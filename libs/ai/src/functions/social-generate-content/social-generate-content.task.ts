import { composePost, type SocialPlatformId } from '@app/social';
import { plainText } from '../../content/html-sanitizer.js';
import { Seed } from '../../local/seed.js';
import { buildSocialContent } from '../../local/social.js';
import { LOCAL_LANGUAGES, templatesFor } from '../../local/templates/index.js';
import { hashtag, list, object, structuredOutput, text } from '../../openai/schemas.js';
import { unusableAnswer as invalid, type AiTask } from '../../providers/ai-provider.js';
import { toHashtag } from '../normalize.js';

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
  /** The platform's text limit in its own units (X: weighted characters); the handler enforces it too. */
  textLimit: number;
}

export interface SocialContentDraft {
  /** The post text without the hashtags (the handler appends them when they fit). */
  text: string;
  /** Each begins with `#`. */
  hashtags: string[];
  /** The hour of day (0–23, store local time) the provider suggests posting at. */
  best_hour: number;
}

export const SOCIAL_CONTENT_OUTPUT = structuredOutput<SocialContentDraft>(
  'social_content',
  object({
    text: text('The post text, without hashtags.'),
    hashtags: list(hashtag, 0, 15, 'Hashtags to append to the post.'),
    best_hour: {
      type: 'integer',
      minimum: 0,
      maximum: 23,
      description: 'The best hour of the day to post, 0 to 23, local time.',
    },
  }),
);

/** Writing a social post about a product. */
export const SOCIAL_GENERATE_CONTENT_TASK: AiTask<SocialContentInput, SocialContentDraft> = {
  name: 'social-generate-content',
  local: {
    languages: LOCAL_LANGUAGES,
    generate: (input) => {
      const { product } = input;
      const seed = Seed.of(
        'social',
        product.name,
        input.platform,
        input.tone.trim().toLowerCase(),
        String(product.price),
        product.currency,
      );
      return buildSocialContent(input, templatesFor(input.language), seed);
    },
  },
  openai: {
    kind: 'chat',
    output: SOCIAL_CONTENT_OUTPUT,
    system: 'You write social media posts for an online store. Answer with the JSON object the schema describes.',
    user: ({ product, platform, tone, language, textLimit }) =>
      [
        `Write a ${platform} post promoting this product, in the language ${language}.`,
        `Request: ${JSON.stringify({ platform, tone, language })}`,
        `Product: ${JSON.stringify({
          name: product.name,
          description: product.description,
          price: product.price,
          currency: product.currency,
          category: product.category,
          seo_keywords: product.seo_keywords,
        })}`,
        `The text must not contain hashtags (give them in hashtags, ` +
          `each beginning with #) and, with the hashtags appended, ` +
          `fit in ${textLimit} characters. best_hour is the hour of day (0-23, local time) this post would do best.`,
      ].join('\n'),
  },
};

/**
 * A social post draft as plain text: the text and each hashtag markup-free (hashtags left empty are
 * dropped). The rest of the post's rules are `fitToPlatform`'s.
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

/** The post as answered: `text` without its hashtags, and the hour to suggest (12 when the draft's is not one). */
export interface FittedPost {
  text: string;
  hashtags: string[];
  hour: number;
}

/**
 * A normalised draft fitted to its platform: an empty text is an unusable answer; text, a blank line
 * and the hashtags that fit stay within the platform's limit (`composePost`), and `text` is the post
 * without them.
 */
export function fitToPlatform(draft: SocialContentDraft, platform: SocialPlatformId): FittedPost {
  const hour =
    Number.isInteger(draft.best_hour) && draft.best_hour >= 0 && draft.best_hour <= 23 ? draft.best_hour : 12;
  const postText = typeof draft.text === 'string' ? draft.text.trim() : '';
  if (!postText) throw invalid('text is empty');
  const hashtags = (Array.isArray(draft.hashtags) ? draft.hashtags : []).filter((tag) => typeof tag === 'string');
  const post = composePost(platform, postText, hashtags);
  // `text` is the post without its hashtags; text + blank line + hashtags fits the platform.
  const suffix = post.hashtags.length ? `\n\n${post.hashtags.join(' ')}` : '';
  const text = suffix && post.text.endsWith(suffix) ? post.text.slice(0, -suffix.length) : post.text;
  return { text, hashtags: post.hashtags, hour };
}
