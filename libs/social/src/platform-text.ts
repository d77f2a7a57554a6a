import { PLATFORM_TEXT_LIMITS, socialPlatformDefinition, type SocialPlatformId } from './platforms/registry.js';
import { countText } from './platforms/text-count.js';

/**
 * Fitting text to a social platform, shared by the AI functions (which write posts) and social
 * publishing (which sends them). Each platform's limit and way of counting are its definition's
 * (platforms/registry.ts).
 */

/**
 * The length a platform counts. X weighs text as its own client does (`twitter-text`): any URL is
 * 23, emoji and CJK characters 2. The others count Unicode code points of the NFC form. X's count
 * stops once it passes `stopAbove` (the answer is then only known to be above it).
 */
export function textLength(platform: SocialPlatformId, text: string, stopAbove?: number): number {
  return countText(socialPlatformDefinition(platform).textCount, text, stopAbove);
}

export interface ComposedPost {
  /** The whole post: the text, then a blank line and the hashtags that fit (if any). */
  text: string;
  /** The hashtags included, normalised, in the order given. */
  hashtags: string[];
}

/**
 * Fits a post to its platform: `text` (shortened at a word boundary with "…" only when it alone is
 * too long), then a blank line and as many of `hashtags` as fit, in order, skipping those that do
 * not. Hashtags are normalised to one leading `#` with no whitespace; empty ones and case-insensitive
 * duplicates are dropped. The result never exceeds the platform's limit.
 */
export function composePost(platform: SocialPlatformId, text: string, hashtags: readonly string[]): ComposedPost {
  const limit = PLATFORM_TEXT_LIMITS[platform];
  const fits = (candidate: string) => textLength(platform, candidate, limit) <= limit;
  const body = text.normalize('NFC').trim();
  if (!fits(body)) return { text: fitText(platform, body, limit), hashtags: [] };

  const included: string[] = [];
  for (const tag of normaliseHashtags(hashtags)) {
    const tags = [...included, tag].join(' ');
    if (fits(body ? `${body}\n\n${tags}` : tags)) included.push(tag);
  }
  if (!included.length) return { text: body, hashtags: [] };
  const tags = included.join(' ');
  return { text: body ? `${body}\n\n${tags}` : tags, hashtags: included };
}

/** `#` exactly once at the front, no whitespace inside; empty ones and case-insensitive repeats dropped. */
export function normaliseHashtags(hashtags: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of hashtags) {
    const body = raw.normalize('NFC').replace(/\s+/g, '').replace(/^#+/, '');
    if (!body) continue;
    const key = body.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(`#${body}`);
  }
  return out;
}

const ELLIPSIS = '…';

/**
 * `text` (trimmed, NFC) when it fits `limit` (the platform's by default); else its longest start
 * that fits with "…" appended, cut at the last space when one is near (else mid-word), never inside
 * a grapheme (emoji sequences, accents).
 */
export function fitText(
  platform: SocialPlatformId,
  text: string,
  limit: number = PLATFORM_TEXT_LIMITS[platform],
): string {
  const fits = (candidate: string) => textLength(platform, candidate, limit) <= limit;
  text = text.normalize('NFC').trim();
  if (fits(text)) return text;
  const pieces = Array.from(
    new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text),
    (part) => part.segment,
  );
  const candidate = (count: number) => `${pieces.slice(0, count).join('').trimEnd()}${ELLIPSIS}`;
  // Binary search for the longest fitting prefix. X's weighting is not strictly monotonic (a URL
  // counts 23 once complete), so the answer is checked again below.
  let low = 0;
  let high = pieces.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(candidate(middle))) low = middle;
    else high = middle - 1;
  }
  let count = low;
  // Prefer a word boundary within the last fifth of what fits.
  for (let i = count; i > Math.floor(count * 0.8); i--) {
    if (/^\s+$/u.test(pieces[i] ?? '')) {
      count = i;
      break;
    }
  }
  while (count > 0 && !fits(candidate(count))) count--;
  // Only a limit below one character leaves nothing at all.
  return fits(candidate(count)) ? candidate(count) : '';
}
