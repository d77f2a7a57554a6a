/** Plain-text helpers of the offline provider. */

/** Text for an HTML text node (not an attribute): the same escaping the article sanitiser writes. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Whitespace collapsed to single spaces, trimmed. */
export function tidy(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** At most `max` characters (code points), cut at a word boundary with "…" when it had to be cut. */
export function clip(text: string, max: number): string {
  const chars = Array.from(tidy(text));
  if (chars.length <= max) return chars.join('');
  const head = chars.slice(0, max - 1).join('');
  const space = head.lastIndexOf(' ');
  const cut = space > head.length * 0.6 ? head.slice(0, space) : head;
  return `${cut.replace(/[\s,;:.–—-]+$/u, '')}…`;
}

export function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** Ends the sentence with a full stop unless it already ends with punctuation. */
export function sentence(text: string): string {
  return /[.!?…:]$/u.test(text) ? text : `${text}.`;
}
