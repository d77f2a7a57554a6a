import type { TextCount } from './social-platform.js';
import { xWeightedLength } from './x/x-text.js';

/**
 * The length of `text` as a platform counting `count` counts it, in time linear in the text. A
 * weighted count stops once it passes `stopAbove`, and is then only known to be above it.
 */
export function countText(count: TextCount, text: string, stopAbove?: number): number {
  if (count === 'weighted') return xWeightedLength(text, stopAbove);
  let length = 0;
  for (const _ of text.normalize('NFC')) length++;
  return length;
}
