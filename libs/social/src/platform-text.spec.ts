import fc from 'fast-check';
import { composePost, fitText, normaliseHashtags, textLength } from './platform-text.js';
import {
  isSocialPlatform,
  PLATFORM_TEXT_LIMITS,
  SOCIAL_PLATFORMS,
  type SocialPlatformId,
} from './platforms/registry.js';

describe('platform ids and limits', () => {
  it('lists the six platforms with their limits', () => {
    expect(SOCIAL_PLATFORMS).toEqual(['instagram', 'facebook', 'x', 'tiktok', 'threads', 'youtube']);
    expect(PLATFORM_TEXT_LIMITS).toEqual({
      x: 280,
      threads: 500,
      instagram: 2200,
      facebook: 63206,
      tiktok: 2200,
      youtube: 5000,
    });
    expect(isSocialPlatform('x')).toBe(true);
    expect(isSocialPlatform('twitter')).toBe(false);
    expect(isSocialPlatform(undefined)).toBe(false);
    expect(isSocialPlatform('toString')).toBe(false);
  });
});

describe('textLength', () => {
  it('counts any URL as 23 on X', () => {
    expect(textLength('x', `https://example.com/${'a'.repeat(100)}`)).toBe(23);
    expect(textLength('x', 'see https://example.com')).toBe(4 + 23);
  });

  it('counts emoji and CJK as 2 on X, as 1 code point elsewhere', () => {
    expect(textLength('x', '😀')).toBe(2);
    expect(textLength('x', '漢字')).toBe(4);
    expect(textLength('instagram', '😀')).toBe(1);
    expect(textLength('threads', '漢字')).toBe(2);
  });

  it('counts code points after NFC elsewhere', () => {
    // "é" as e + combining acute is one character once composed.
    expect(textLength('facebook', 'e\u0301')).toBe(1);
    expect(textLength('youtube', 'plain')).toBe(5);
  });
});

describe('normaliseHashtags', () => {
  it('gives one leading #, no spaces, no empties, no case-insensitive duplicates', () => {
    expect(normaliseHashtags(['summer', '#Summer', '##sale', ' new in ', '#', '', '  ', 'SALE', '#été'])).toEqual([
      '#summer',
      '#sale',
      '#newin',
      '#été',
    ]);
  });
});

describe('composePost', () => {
  it('appends the hashtags after a blank line when they fit', () => {
    expect(composePost('instagram', 'New mugs are in!', ['mugs', '#coffee'])).toEqual({
      text: 'New mugs are in!\n\n#mugs #coffee',
      hashtags: ['#mugs', '#coffee'],
    });
  });

  it('leaves out the hashtags that do not fit and keeps the others', () => {
    const text = 'a'.repeat(270);
    const post = composePost('x', text, ['#waytoolonghashtag', '#ok']);
    expect(post).toEqual({ text: `${text}\n\n#ok`, hashtags: ['#ok'] });
    expect(textLength('x', post.text)).toBe(270 + 2 + 3);
  });

  it('truncates a 281-character text for X at a word boundary with an ellipsis', () => {
    const text = `${'word '.repeat(56)}x`.slice(0, 281);
    expect(textLength('x', text)).toBe(281);
    const post = composePost('x', text, ['#tag']);
    expect(post.hashtags).toEqual([]);
    expect(textLength('x', post.text)).toBeLessThanOrEqual(280);
    expect(post.text.endsWith('word…')).toBe(true);
    expect(text.startsWith(post.text.slice(0, -1))).toBe(true);
  });

  it('cuts mid-word only when there is no space near', () => {
    const post = composePost('threads', 'x'.repeat(600), []);
    expect(post.text).toBe(`${'x'.repeat(499)}…`);
  });

  it('counts a URL as 23 on X when deciding what fits', () => {
    const url = `https://example.com/${'p'.repeat(300)}`;
    const post = composePost('x', `Read this ${url}`, ['#blog']);
    expect(post.text).toBe(`Read this ${url}\n\n#blog`);
    expect(textLength('x', post.text)).toBe(10 + 23 + 2 + 5);
  });

  it('counts emoji as 2 on X', () => {
    const post = composePost('x', '😀'.repeat(141), []);
    expect(textLength('x', post.text)).toBeLessThanOrEqual(280);
    // Never splits an emoji: only whole ones remain.
    expect(post.text).toMatch(/^(😀)+…$/u);
  });

  it('gives only the hashtags when the text is empty', () => {
    expect(composePost('facebook', '   ', ['a', 'b'])).toEqual({ text: '#a #b', hashtags: ['#a', '#b'] });
  });

  it('never exceeds any platform limit (property)', () => {
    const platform = fc.constantFrom(...SOCIAL_PLATFORMS);
    const words = fc.array(
      fc.oneof(
        fc.string({ unit: 'grapheme', maxLength: 30 }),
        fc.constant('https://example.com/path'),
        fc.constant('😀👍🏽'),
      ),
      {
        maxLength: 150,
      },
    );
    fc.assert(
      fc.property(
        platform,
        words,
        fc.array(fc.string({ maxLength: 40 }), { maxLength: 15 }),
        (id: SocialPlatformId, parts: string[], tags: string[]) => {
          // Short limits are exercised through X (280) and threads (500); long texts make others truncate too.
          const text =
            id === 'x' || id === 'threads'
              ? parts.join(' ')
              : parts.join(' ').repeat(Math.ceil(PLATFORM_TEXT_LIMITS[id] / 1000));
          const post = composePost(id, text, tags);
          expect(textLength(id, post.text)).toBeLessThanOrEqual(PLATFORM_TEXT_LIMITS[id]);
          for (const tag of post.hashtags) {
            expect(tag).toMatch(/^#[^#\s]/u);
            expect(tag).not.toMatch(/\s/u);
            expect(post.text).toContain(tag);
          }
          expect(new Set(post.hashtags.map((tag) => tag.toLowerCase())).size).toBe(post.hashtags.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('fitText shortens to any smaller limit', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SOCIAL_PLATFORMS),
        fc.string({ unit: 'grapheme', maxLength: 400 }),
        fc.integer({ min: 1, max: 300 }),
        (id, text, limit) => {
          expect(textLength(id, fitText(id, text, limit))).toBeLessThanOrEqual(limit);
        },
      ),
      { numRuns: 300 },
    );
  });
});
