import type { MediaItem, PostContent, SocialPlatformDefinition } from './social-platform.js';
import { countText } from './text-count.js';

/**
 * The text a platform without a link field receives: the text, then the link on its own line
 * (just the link when there is no text). Validation counts this whole text, so a link counts
 * against the limit as it will when posted (on X, 23 weighted characters).
 */
export function textWithLink(content: PostContent): string {
  const text = content.text.trim();
  if (!content.link) return text;
  return text ? `${text}\n${content.link}` : content.link;
}

/** How far past its limit a weighted count goes on: beyond it, a text is said to have "more than" this. */
const COUNTED_PAST_LIMIT = 4;

/** The limit problem of `text` on `platform`, if any. */
export function textLimitProblem(platform: SocialPlatformDefinition, text: string, what = 'text'): string[] {
  const limit = platform.textLimit;
  const weighted = platform.textCount === 'weighted';
  const counted = limit * COUNTED_PAST_LIMIT;
  const length = countText(platform.textCount, text, counted);
  if (length <= limit) return [];
  const unit = weighted ? 'weighted characters (a URL counts 23, emoji and CJK 2)' : 'characters';
  const number = (value: number) => value.toLocaleString('en-US');
  const has = weighted && length > counted ? `more than ${number(counted)}` : number(length);
  return [`${platform.displayName} allows ${limit.toLocaleString('en-US')} ${unit} of ${what}; this has ${has}`];
}

export const imagesOf = (content: PostContent): MediaItem[] => content.media.filter((item) => item.type === 'image');
export const videosOf = (content: PostContent): MediaItem[] => content.media.filter((item) => item.type === 'video');

/** The first line of `text`, at most `max` code points (YouTube titles, TikTok photo titles). */
export function firstLine(text: string, max: number): string {
  const line = text.trim().split(/\r?\n/, 1)[0]?.trim() ?? '';
  const points = Array.from(line);
  return points.length <= max
    ? line
    : `${points
        .slice(0, max - 1)
        .join('')
        .trimEnd()}…`;
}
