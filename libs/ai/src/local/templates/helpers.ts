/** Small text helpers the language templates share. */

/** `a, b and c` as the language writes it. */
export function conjunction(language: string): (items: readonly string[]) => string {
  const format = new Intl.ListFormat(language, { type: 'conjunction', style: 'long' });
  return (items) => format.format(items);
}

/** The first letter in upper case (the rest untouched: topics may hold names or acronyms). */
export function cap(text: string): string {
  return text.charAt(0).toLocaleUpperCase() + text.slice(1);
}
