import { normaliseHashtags } from '@app/social';
import { plainText } from '../content/html-sanitizer.js';
import { unusableAnswer as invalid } from '../providers/ai-provider.js';

/**
 * What the functions' normalisers share (each function applies its own, `normalize…` in its task
 * file, to whatever a provider answered, the same for every provider; the rules are listed in
 * docs/architecture.md § AI credits and functions). What can be tidied is (whitespace, `#` prefixes,
 * duplicates, cents, markup in plain-text fields); what cannot is an invalid answer: the caller is
 * refunded and gets 502.
 *
 * Every field but the article's `content` is plain text and goes through `plainText`: a provider
 * echoes what the caller wrote (a topic, a product name), in whatever encoding, and the answer is
 * shown on pages, so no such field may carry markup, encoded or not.
 */

/** A required plain-text field: markup-free, and not empty once the markup is gone. */
export function plainTextField(value: unknown, field: string): string {
  const plain = typeof value === 'string' ? plainText(value) : '';
  if (!plain) throw invalid(`${field} is empty`);
  return plain;
}

/** The items of a list answer, tidied, without empty ones and case-insensitive repeats. */
export function distinct(items: unknown, field: string, tidy: (item: string) => string): string[] {
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

export const cents = (value: number) => Math.round(value * 100) / 100;

/**
 * One hashtag as `#body` (whitespace removed), or '' when nothing is left: the social module's rule.
 * Removing whitespace can join pieces into markup (`< b >`, `& lt;`): such a tag is dropped.
 */
export const toHashtag = (raw: string): string => {
  const tag = normaliseHashtags([plainText(raw)])[0] ?? '';
  return plainText(tag) === tag ? tag : '';
};
