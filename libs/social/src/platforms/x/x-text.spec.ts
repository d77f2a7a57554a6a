import twitterText from 'twitter-text';
import { xWeightedLength } from './x-text.js';

/** A small seeded generator, so a failure names a sample that comes back on the next run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return state / 2 ** 32;
  };
}

const FRAGMENTS = [
  'Our new mug is here',
  'sale',
  'ends Friday!',
  'https://shop.example.com/mugs?utm_source=x&utm_medium=social',
  'http://example.org/a/b(c)/d.html',
  'shop.example.com/new',
  'www.example.co.uk',
  't.co/abcdefghij',
  'https://t.co/abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklm',
  '(https://example.com/path)',
  'example.com.',
  'mail@example.com',
  'a.b',
  'v1.2.3',
  '$AAPL',
  '#Hashtag',
  '@someone',
  '😀',
  '👍🏽',
  '👨‍👩‍👧‍👦',
  '🏴󠁧󠁢󠁥󠁮󠁧󠁿',
  '#️⃣',
  '❤️',
  '☕',
  '中文测试',
  '日本語のテキスト',
  '한국어',
  'مرحبا',
  'עברית',
  'Ünïcödé',
  'e\u0301',
  'naïve café',
  '—',
  '…',
  '\u200d',
  'https://例え.テスト/パス',
  'http://xn--r8jz45g.xn--zckzah/',
  'https://example.com:8080/x?y=1#frag',
  'ftp://example.com',
  '!!!',
  '1.5',
];
const SPACES = [' ', ' ', ' ', '\n', '\n\n', '\t', '\u3000', '\u00a0', '\u2028', '\u205f', ''];

function sample(next: () => number, pieces: number): string {
  let text = '';
  for (let i = 0; i < pieces; i++) {
    text += FRAGMENTS[Math.floor(next() * FRAGMENTS.length)];
    text += SPACES[Math.floor(next() * SPACES.length)];
  }
  return text;
}

/** The text goes with the lengths, so that a failure shows the sample. */
function expectTwitterTextLength(text: string): void {
  const twitter = twitterText.parseTweet(text).weightedLength;
  expect({ text, length: xWeightedLength(text) }).toEqual({ text, length: twitter });
}

describe('xWeightedLength', () => {
  it('equals twitter-text on ordinary posts: links, emoji, CJK, RTL, combining marks, every kind of space', () => {
    const next = random(26);
    for (let round = 0; round < 600; round++) {
      // Short posts, and long ones that are weighed in chunks.
      const text = sample(next, 1 + Math.floor(next() * (round % 3 === 0 ? 200 : 30)));
      expectTwitterTextLength(text);
    }
  });

  it('equals twitter-text on long links (over the chunk size) among other text', () => {
    const long = `https://shop.example.com/p/${'abc-'.repeat(120)}?ref=${'x'.repeat(300)}`;
    const words = 'word '.repeat(100);
    const texts = [long, `Look ${long} now`, `${words}${long}. And ${long}, again`, `(${long})`, long + long];
    for (const text of texts) {
      expectTwitterTextLength(text);
    }
  });

  it('counts a run without whitespace longer than a link can be by its characters', () => {
    expect(xWeightedLength(`https://example.com/${'a'.repeat(5000)}`)).toBe(5020);
    expect(xWeightedLength('中'.repeat(1000))).toBe(2000);
  });

  it('is linear on text that makes twitter-text quadratic, and stops counting past stopAbove', () => {
    const hostile = [
      'a.'.repeat(30_000),
      '中.'.repeat(30_000),
      'ab.'.repeat(20_000),
      'a.b-'.repeat(15_000),
      `https://${'a.'.repeat(30_000)}`,
    ];
    for (const text of hostile) {
      const started = performance.now();
      const length = xWeightedLength(text);
      expect(performance.now() - started).toBeLessThan(100);
      expect(length).toBeGreaterThan(280);
      const stopped = performance.now();
      expect(xWeightedLength(text, 280)).toBeGreaterThan(280);
      expect(performance.now() - stopped).toBeLessThan(20);
    }
    // Under the stop, the count is whole.
    expect(xWeightedLength('a'.repeat(270), 280)).toBe(270);
  });
});
