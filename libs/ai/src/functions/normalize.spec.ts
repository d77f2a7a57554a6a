import { AiProviderError } from '../providers/ai-provider.js';
import { normalizeArticle, type ArticleDraft } from './generate-blog-autopilot/generate-blog-autopilot.task.js';
import { normalizeProduct, type ProductDraft } from './generate-product/generate-product.task.js';
import { normalizeInsights, type InsightsDraft } from './research-social-context/research-social-context.task.js';
import { normalizeSocialDraft } from './social-generate-content/social-generate-content.task.js';

/**
 * Markup a browser would run or render once a page inserts the value unescaped: a tag, a closing
 * tag, a comment or declaration opening.
 */
const LIVE_TAG = /<[a-z!/?]/i;
/** A character reference that one more decoding step would turn into `<`, `>`, `&` or a quote. */
const ENCODED_MARKUP = /&(?:lt|gt|amp|quot|apos|#0*(?:60|62|38|34|39)|#x0*(?:3c|3e|26|22|27))(?![a-z0-9])/i;

function expectInert(value: string, label: string): void {
  expect(value, label).not.toMatch(LIVE_TAG);
  expect(value, label).not.toMatch(ENCODED_MARKUP);
}

/** The same attack in the encodings a provider may echo it back in. */
const ATTACKS: Record<string, string> = {
  raw: '<script>alert(1)</script>',
  named: '&lt;script&gt;alert(1)&lt;/script&gt;',
  'named, upper case': '&LT;script&GT;alert(1)&LT;/script&GT;',
  'named, no semicolons': '&ltscript&gtalert(1)&lt/script&gt',
  decimal: '&#60;script&#62;alert(1)&#60;/script&#62;',
  'decimal, zero-padded': '&#0000060;script&#0062;alert(1)&#060;/script&#62;',
  hex: '&#x3c;script&#x3E;alert(1)&#X3C;/script&#x3e;',
  'double-encoded': '&amp;lt;script&amp;gt;alert(1)&amp;lt;/script&amp;gt;',
  'triple-encoded, mixed': '&amp;amp;#x3c;script&amp;amp;#62;alert(1)&amp;amp;lt;/script&amp;amp;gt;',
  'img onerror': '<img src=x onerror=alert(1)>',
  'img onerror, encoded': '&lt;img src=x onerror=alert(1)&gt;',
  'img onerror, double-encoded hex': '&amp;#x3c;img src=x onerror=alert(1)&amp;#x3e;',
  'split by a tag': '<scr<b></b>ipt>alert(1)</scr<b></b>ipt>',
  'comment, encoded': '&lt;!--&gt;&lt;img src=x onerror=alert(1)&gt;',
  'svg onload': '&lt;svg/onload=alert(1)&gt;',
};

const product = (overrides: Partial<ProductDraft> = {}): ProductDraft => ({
  name: 'Linen shirt',
  name_en: 'Linen shirt',
  description: 'A light shirt.',
  price: 49,
  compare_price: 59,
  category: 'Shirts',
  seo_keywords: ['linen', 'shirt', 'summer'],
  ...overrides,
});

const article = (overrides: Partial<ArticleDraft> = {}): ArticleDraft => ({
  title: 'Caring for linen',
  content: '<h2>Why</h2><p>Linen lasts.</p>',
  excerpt: 'Linen lasts.',
  seo_title: 'Caring for linen',
  seo_description: 'How to care for linen.',
  ...overrides,
});

const insights = (overrides: Partial<InsightsDraft> = {}): InsightsDraft => ({
  trending_topics: ['linen'],
  popular_hashtags: ['#linen'],
  audience_sentiment: 'positive',
  recommendations: ['Post in the morning'],
  ...overrides,
});

describe('plain-text fields of the AI answers', () => {
  describe.each(Object.entries(ATTACKS))('%s', (_encoding, attack) => {
    // An unclosed <svg> swallows the rest of the value (as a browser would): the field's own words come first.
    const around = (text: string) => `Guide ${text}: ${attack} end`;

    it('leaves no markup in any article text field, and keeps the article HTML sanitised', () => {
      const result = normalizeArticle(
        article({
          title: around('title'),
          excerpt: around('excerpt'),
          seo_title: around('seo'),
          seo_description: around('description'),
          content: `<p>Body</p><p>${attack}</p>`,
        }),
      );
      for (const field of ['title', 'excerpt', 'seo_title', 'seo_description'] as const)
        expectInert(result[field], field);
      expect(result.title).toMatch(/^Guide title:/);
      expect(result.content).toMatch(/^<p>Body<\/p>/);
      // HTML: an escaped `&lt;img&gt;` in it is text a browser shows, and no element has an event handler.
      expect(result.content).not.toMatch(/<(?:script|img|svg)|<[^>]*\son\w+=/i);
    });

    it('leaves no markup in any product text field', () => {
      const result = normalizeProduct(
        product({
          name: around('name'),
          name_en: around('name'),
          description: around('description'),
          category: around('category'),
          seo_keywords: [around('a'), around('b'), around('c'), attack],
        }),
      );
      for (const field of ['name', 'name_en', 'description', 'category'] as const) expectInert(result[field], field);
      for (const keyword of result.seo_keywords) expectInert(keyword, 'seo_keywords');
      expect(result.seo_keywords.length).toBeGreaterThanOrEqual(3);
    });

    it('leaves no markup in insights or social drafts, hashtags included', () => {
      const result = normalizeInsights(
        insights({
          trending_topics: [around('topic')],
          popular_hashtags: ['#linen', attack, `#${attack}`],
          audience_sentiment: around('sentiment'),
          recommendations: [around('advice')],
        }),
      );
      for (const value of [
        ...result.trending_topics,
        ...result.popular_hashtags,
        ...result.recommendations,
        result.audience_sentiment,
      ]) {
        expectInert(value, 'insights');
      }
      expect(result.popular_hashtags[0]).toBe('#linen');

      const draft = normalizeSocialDraft({
        text: around('post'),
        hashtags: ['#linen', attack, `#${attack}`],
        best_hour: 9,
      });
      expectInert(draft.text, 'text');
      for (const tag of draft.hashtags) expectInert(tag, 'hashtag');
      expect(draft.hashtags[0]).toBe('#linen');
      expect(draft.best_hour).toBe(9);
    });
  });

  it('decodes what is only text: entities become the characters they stand for', () => {
    const result = normalizeArticle(
      article({
        title: 'Tom &amp; Jerry &eacute;t&#233; &#x2014; caf&eacute;',
        excerpt: 'Caf&amp;eacute; au lait',
        seo_title: '&quot;Quoted&quot; &#39;single&#39;',
      }),
    );
    expect(result.title).toBe('Tom & Jerry été — café');
    expect(result.excerpt).toBe('Café au lait');
    expect(result.seo_title).toBe('"Quoted" \'single\'');
  });

  it('keeps comparisons and ampersands readable where they are not markup', () => {
    const result = normalizeProduct(
      product({
        name: 'Tom & Jerry mug',
        description: 'For a < b and 5 > 3, and <3 to you; AT&T & co.',
        category: 'Mugs & cups',
        seo_keywords: ['a < b', 'R&D', 'x > y'],
      }),
    );
    expect(result.name).toBe('Tom & Jerry mug');
    expect(result.description).toBe('For a < b and 5 > 3, and <3 to you; AT&T & co.');
    expect(result.category).toBe('Mugs & cups');
    expect(result.seo_keywords).toEqual(['a < b', 'R&D', 'x > y']);
  });

  it(
    'leaves the whitespace of plain text as it was: a post ' + 'keeps its blank lines, a name its non-breaking space',
    () => {
      const draft = normalizeSocialDraft({
        text: '  Meet the bag.\n\nIt carries  your day.\r\n🎒 ',
        hashtags: ['#newin'],
        best_hour: 18,
      });
      expect(draft.text).toBe('Meet the bag.\n\nIt carries  your day.\r\n🎒');
      expect(normalizeProduct(product({ name: 'Size\u00a0M' })).name).toBe('Size\u00a0M');
      expect(normalizeProduct(product({ name: 'Size&nbsp;M' })).name).toBe('Size\u00a0M');
      // Article fields are headings and snippets: one line per block, single spaces.
      expect(normalizeArticle(article({ title: ' Caring\n\n for   <b>linen</b> ' })).title).toBe('Caring\nfor linen');
    },
  );

  it('an encoded `a &lt; b` is the text `a < b`, decoded once or twice', () => {
    expect(normalizeProduct(product({ name: 'a &lt; b' })).name).toBe('a < b');
    expect(normalizeProduct(product({ name: 'a &amp;lt; b' })).name).toBe('a < b');
  });

  it('drops tags around text and keeps the text, links included', () => {
    const result = normalizeArticle(
      article({ title: '<b>Bold</b> <a href="javascript:alert(1)">click</a> <em>here</em>' }),
    );
    expect(result.title).toBe('Bold click here');
  });

  it('keeps the text of an unclosed element: a clipped or half-typed tag does not swallow the rest', () => {
    expect(normalizeArticle(article({ seo_title: 'Linen &lt;script&gt;alert(1) care&lt;/scr' })).seo_title).toBe(
      'Linen alert(1) care',
    );
    expect(normalizeArticle(article({ title: '&lt;svg onload=alert(1)&gt; Linen care' })).title).toBe('Linen care');
    expect(normalizeArticle(article({ title: '<script>alert(1)</script>Linen' })).title).toBe('alert(1)Linen');
  });

  it('answers a field that was nothing but markup as an unusable answer (refunded), not an empty string', () => {
    expect(() => normalizeArticle(article({ title: '&lt;img src=x onerror=alert(1)&gt;' }))).toThrow(AiProviderError);
    expect(() => normalizeProduct(product({ name: '<img src=x onerror=alert(1)><br>&amp;lt;hr&amp;gt;' }))).toThrow(
      /name is empty/,
    );
  });

  it('defuses what keeps unfolding however often it is decoded', () => {
    const deep = `&amp;${'amp;'.repeat(40)}lt;script&gt;alert(1)`;
    const result = normalizeProduct(product({ description: `Deep ${deep}` }));
    expectInert(result.description, 'description');
    expect(result.description).toMatch(/^Deep /);
    expect(result.description).not.toContain('<');
    expect(result.description).not.toContain('&');
  });

  it('drops a hashtag that only becomes markup once its spaces are removed', () => {
    const draft = normalizeSocialDraft({ text: 'New in', hashtags: ['#linen', '< b >', '& lt;b& gt;'], best_hour: 12 });
    expect(draft.hashtags).toEqual(['#linen']);
  });

  it('is idempotent', () => {
    for (const attack of Object.values(ATTACKS)) {
      const once = normalizeArticle(article({ title: `A ${attack} & b < c`, excerpt: `Tom &amp; ${attack}` }));
      expect(normalizeArticle(once)).toEqual(once);
    }
  });
});
