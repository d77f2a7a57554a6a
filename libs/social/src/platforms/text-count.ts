import twitterText from 'twitter-text';
import type { TextCount } from './social-platform.js';

/** The length of `text` as a platform counting `count` counts it. */
export function countText(count: TextCount, text: string): number {
  if (count === 'weighted') return twitterText.parseTweet(text).weightedLength;
  let length = 0;
  for (const _ of text.normalize('NFC')) length++;
  return length;
}
