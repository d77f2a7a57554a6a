import sharp from 'sharp';
import { textLength } from '@app/social';
import { htmlToText, sanitizeArticleHtml } from '../content/html-sanitizer.js';
import { analyzeImage } from '../images/image-analysis.js';
import {
  GENERATE_BLOG_AUTOPILOT_TASK,
  type ArticleLength,
} from '../functions/generate-blog-autopilot/generate-blog-autopilot.task.js';
import { GENERATE_BLOG_COVER_TASK } from '../functions/generate-blog-cover/generate-blog-cover.task.js';
import { GENERATE_PRODUCT_TASK } from '../functions/generate-product/generate-product.task.js';
import { RESEARCH_SOCIAL_CONTEXT_TASK } from '../functions/research-social-context/research-social-context.task.js';
import {
  SOCIAL_GENERATE_CONTENT_TASK,
  type SocialContentInput,
} from '../functions/social-generate-content/social-generate-content.task.js';
import type { ImageFacts } from '../providers/ai-provider.js';
import { LocalAiProvider } from './local-ai.provider.js';
import { ratioLabel } from './product.js';

const provider = new LocalAiProvider();

async function photo(width: number, height: number, left: string, right: string): Promise<ImageFacts> {
  const png = await sharp({ create: { width, height, channels: 3, background: left } })
    .composite([
      {
        input: { create: { width: Math.ceil(width / 2), height, channels: 3, background: right } },
        left: Math.floor(width / 2),
        top: 0,
      },
    ])
    .flatten()
    .png()
    .toBuffer();
  return analyzeImage(png);
}

const words = (html: string) => htmlToText(html).split(/\s+/).filter(Boolean).length;

describe('LocalAiProvider', () => {
  let image: ImageFacts;
  beforeAll(async () => {
    image = await photo(600, 400, '#ff0000', '#0000ff');
  });

  it('is the local provider', () => {
    expect(provider.id).toBe('local');
  });

  describe('generate-product', () => {
    it('is deterministic', async () => {
      const a = await provider.run(GENERATE_PRODUCT_TASK, { image, language: 'en', currency: 'USD' });
      const b = await provider.run(GENERATE_PRODUCT_TASK, {
        image: { ...image, bytes: Buffer.from(image.bytes) },
        language: 'en',
        currency: 'USD',
      });
      expect(a).toEqual(b);
    });

    it('describes the colours and proportions of the image', async () => {
      const product = await provider.run(GENERATE_PRODUCT_TASK, { image, language: 'en', currency: 'USD' });
      expect(product.description).toMatch(/\bred\b/);
      expect(product.description).toMatch(/\bblue\b/);
      expect(product.description).toContain('landscape');
      expect(product.description).toContain('3:2');
      const sentences = product.description.split(/(?<=\.)\s/);
      expect(sentences.length).toBeGreaterThanOrEqual(2);
      expect(sentences.length).toBeLessThanOrEqual(3);
    });

    it('writes in the requested language, with name_en in English', async () => {
      const en = await provider.run(GENERATE_PRODUCT_TASK, { image, language: 'en', currency: 'EUR' });
      const fr = await provider.run(GENERATE_PRODUCT_TASK, { image, language: 'fr', currency: 'EUR' });
      expect(fr.name).not.toBe(en.name);
      expect(fr.description).not.toBe(en.description);
      expect(fr.description).toMatch(/\brouge\b/);
      expect(fr.category).not.toBe(en.category);
      expect(fr.name_en).toBe(en.name);
      expect(en.name_en).toBe(en.name);
      // Same product in both: same prices.
      expect([fr.price, fr.compare_price]).toEqual([en.price, en.compare_price]);
    });

    it('declares the languages it writes (the function refuses others), pt-BR and pt-PT in Portuguese', async () => {
      expect(provider.languagesFor(GENERATE_PRODUCT_TASK)).toEqual(['en', 'fr', 'es', 'de', 'pt']);
      expect(provider.languagesFor(GENERATE_BLOG_AUTOPILOT_TASK)).toEqual(['en', 'fr', 'es', 'de', 'pt']);
      expect(provider.languagesFor(SOCIAL_GENERATE_CONTENT_TASK)).toEqual(['en', 'fr', 'es', 'de', 'pt']);
      // Tasks whose input has no language declare none.
      expect(provider.languagesFor(GENERATE_BLOG_COVER_TASK)).toBeNull();
      expect(provider.languagesFor(RESEARCH_SOCIAL_CONTEXT_TASK)).toBeNull();
      const en = await provider.run(GENERATE_PRODUCT_TASK, { image, language: 'en', currency: 'EUR' });
      const pt = await provider.run(GENERATE_PRODUCT_TASK, { image, language: 'pt', currency: 'EUR' });
      expect(await provider.run(GENERATE_PRODUCT_TASK, { image, language: 'pt-BR', currency: 'BRL' })).toEqual(pt);
      expect(await provider.run(GENERATE_PRODUCT_TASK, { image, language: 'pt-PT', currency: 'EUR' })).toEqual(pt);
      expect(pt.name).not.toBe(en.name);
      for (const language of ['es', 'de']) {
        expect((await provider.run(GENERATE_PRODUCT_TASK, { image, language, currency: 'EUR' })).name).not.toBe(
          en.name,
        );
      }
    });

    it('keeps prices and keywords within the contract for many images', async () => {
      const colours = ['#ff0000', '#00ff00', '#0000ff', '#ffffff', '#000000', '#f5deb3', '#800080', '#008080'];
      const sizes: [number, number][] = [
        [300, 200],
        [200, 300],
        [250, 250],
        [640, 360],
      ];
      const names = new Set<string>();
      for (const [i, colour] of colours.entries()) {
        for (const [width, height] of sizes) {
          const facts = await photo(width, height, colour, colours[(i + 3) % colours.length]);
          for (const language of ['en', 'de']) {
            const product = await provider.run(GENERATE_PRODUCT_TASK, { image: facts, language, currency: 'EUR' });
            names.add(product.name_en);
            expect(product.price).toBeGreaterThan(0);
            expect(product.price).toBeGreaterThanOrEqual(9.99);
            expect(product.price).toBeLessThanOrEqual(199.99);
            expect(Math.round(product.price * 100) / 100).toBe(product.price);
            expect(Math.round(product.compare_price * 100) / 100).toBe(product.compare_price);
            // 20–40 % above the price, then rounded to end in .99.
            expect(product.compare_price).toBeGreaterThanOrEqual(product.price * 1.2 - 0.01);
            expect(product.compare_price).toBeLessThanOrEqual(product.price * 1.4 + 0.99);
            expect(product.seo_keywords.length).toBeGreaterThanOrEqual(3);
            expect(product.seo_keywords.length).toBeLessThanOrEqual(10);
            expect(new Set(product.seo_keywords).size).toBe(product.seo_keywords.length);
            for (const keyword of product.seo_keywords) expect(keyword).toBe(keyword.toLocaleLowerCase());
            expect(product.name && product.category && product.description).toBeTruthy();
          }
        }
      }
      // The hash and the facts vary the products.
      expect(names.size).toBeGreaterThan(10);
    });

    it('labels proportions', () => {
      expect(ratioLabel(1920, 1080)).toBe('16:9');
      expect(ratioLabel(800, 1000)).toBe('4:5');
      expect(ratioLabel(500, 500)).toBe('1:1');
      expect(ratioLabel(1000, 370)).toBe('2.7:1');
    });

    it('copes with an image without visible colours', async () => {
      const transparent = await sharp({
        create: { width: 20, height: 20, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
      })
        .png()
        .toBuffer();
      const facts = await analyzeImage(transparent);
      expect(facts.dominantColors).toEqual([]);
      const product = await provider.run(GENERATE_PRODUCT_TASK, { image: facts, language: 'fr', currency: 'EUR' });
      expect(product.description).toContain('tons neutres');
      expect(product.seo_keywords.length).toBeGreaterThanOrEqual(3);
    });
  });

  describe('generate-blog-cover', () => {
    it('draws the 1200×630 PNG deterministically', async () => {
      const input = { title: 'Summer sale', style: 'playful', colors: ['#ffcc00', '#ff3366'] };
      const a = await provider.run(GENERATE_BLOG_COVER_TASK, input);
      const b = await provider.run(GENERATE_BLOG_COVER_TASK, input);
      expect(a.bytes.equals(b.bytes)).toBe(true);
      expect(await sharp(a.bytes).metadata()).toMatchObject({ format: 'png', width: 1200, height: 630 });
    });
  });

  describe('generate-blog-autopilot', () => {
    const article = (length: ArticleLength, language = 'en', topic = 'caring for linen shirts', tone = 'friendly') =>
      provider.run(GENERATE_BLOG_AUTOPILOT_TASK, { topic, tone, length, language });

    it('is deterministic', async () => {
      expect(await article('medium', 'es')).toEqual(await article('medium', 'es'));
    });

    it.each(['en', 'fr', 'es', 'de', 'pt'])('grows from short to medium to long (%s)', async (language) => {
      const [short, medium, long] = await Promise.all([
        article('short', language),
        article('medium', language),
        article('long', language),
      ]);
      const counts = [words(short.content), words(medium.content), words(long.content)];
      expect(counts[0]).toBeGreaterThanOrEqual(250);
      expect(counts[0]).toBeLessThanOrEqual(400);
      expect(counts[1]).toBeGreaterThanOrEqual(600);
      expect(counts[1]).toBeLessThanOrEqual(900);
      expect(counts[2]).toBeGreaterThanOrEqual(1200);
      expect(counts[2]).toBeLessThanOrEqual(1600);
      expect((short.content.match(/<h2>/g) ?? []).length).toBe(3);
      expect((medium.content.match(/<h2>/g) ?? []).length).toBe(5);
      expect((long.content.match(/<h2>/g) ?? []).length).toBe(8);
    });

    it('has sections, paragraphs and one list, and weaves in the topic and tone', async () => {
      const { content, title } = await article('medium');
      expect((content.match(/<ul>/g) ?? []).length).toBe(1);
      expect((content.match(/<li>/g) ?? []).length).toBeGreaterThanOrEqual(3);
      expect((content.match(/<p>/g) ?? []).length).toBeGreaterThanOrEqual(5);
      expect(content).toContain('caring for linen shirts');
      expect(content).toContain('friendly');
      expect(title.toLowerCase()).toContain('caring for linen shirts');
    });

    it(
      'writes in the requested language; its templates fall back ' +
        'to English (the function refuses such a language first)',
      async () => {
        const en = await article('short', 'en');
        const fr = await article('short', 'fr');
        const unknown = await article('short', 'zh-Hans');
        expect(fr.content).not.toBe(en.content);
        expect(fr.content).toContain('Conseils pratiques');
        expect(unknown).toEqual(en);
      },
    );

    it('produces HTML the sanitiser leaves unchanged, even from hostile input', async () => {
      const hostile = await article(
        'short',
        'en',
        '<script>alert(1)</script> & <img src=x onerror=alert(2)>',
        '"><b onclick=x>',
      );
      for (const { content } of [hostile, await article('long', 'de')]) {
        expect(sanitizeArticleHtml(content)).toBe(content);
        // Only the article's own tags, none with an attribute.
        const tags = content.match(/<[^>]*>/g) ?? [];
        for (const tag of tags) expect(tag).toMatch(/^<\/?(h2|p|ul|li)>$/);
      }
      expect(hostile.content).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;img');
    });

    it('keeps the excerpt and SEO fields within their lengths, as plain text', async () => {
      const topic = `${'the very long and winding topic of sustainable linen care at home '.repeat(3)}`.slice(0, 200);
      for (const language of ['en', 'fr']) {
        const { excerpt, seo_title, seo_description, title } = await article(
          'short',
          language,
          topic,
          'warm and professional',
        );
        expect(Array.from(excerpt).length).toBeLessThanOrEqual(300);
        expect(Array.from(seo_title).length).toBeLessThanOrEqual(60);
        expect(Array.from(seo_description).length).toBeLessThanOrEqual(160);
        expect(seo_title.endsWith('…')).toBe(true);
        for (const text of [excerpt, seo_title, seo_description, title]) expect(text).not.toMatch(/[<>]/);
      }
    });
  });

  describe('research-social-context', () => {
    it('answers insights within the contract, naming each requested platform', async () => {
      const insights = await provider.run(RESEARCH_SOCIAL_CONTEXT_TASK, {
        query: 'Sustainable sneakers',
        platforms: ['instagram', 'tiktok', 'youtube'],
      });
      expect(insights.trending_topics.length).toBeGreaterThanOrEqual(3);
      expect(insights.trending_topics.length).toBeLessThanOrEqual(6);
      expect(insights.trending_topics.some((topic) => topic.includes('sustainable sneakers'))).toBe(true);
      expect(insights.popular_hashtags.length).toBeGreaterThanOrEqual(5);
      expect(insights.popular_hashtags.length).toBeLessThanOrEqual(10);
      for (const tag of insights.popular_hashtags) expect(tag).toMatch(/^#[^\s#]+$/u);
      expect(['mostly positive', 'positive', 'enthusiastic', 'curious', 'mixed', 'neutral']).toContain(
        insights.audience_sentiment,
      );
      expect(insights.recommendations.length).toBeGreaterThanOrEqual(3);
      expect(insights.recommendations.length).toBeLessThanOrEqual(6);
      for (const name of ['Instagram', 'TikTok', 'YouTube'])
        expect(insights.recommendations.some((r) => r.includes(name))).toBe(true);
    });

    it('is deterministic and caps recommendations at six for all platforms', async () => {
      const input = { query: 'linen', platforms: ['instagram', 'facebook', 'x', 'tiktok', 'threads', 'youtube'] };
      const a = await provider.run(RESEARCH_SOCIAL_CONTEXT_TASK, input);
      expect(await provider.run(RESEARCH_SOCIAL_CONTEXT_TASK, { ...input, platforms: [...input.platforms] })).toEqual(
        a,
      );
      expect(a.recommendations).toHaveLength(6);
      const single = await provider.run(RESEARCH_SOCIAL_CONTEXT_TASK, { query: 'linen', platforms: ['x'] });
      expect(single.recommendations.length).toBeGreaterThanOrEqual(3);
      expect(single.recommendations.some((r) => r.startsWith('On X,'))).toBe(true);
    });
  });

  describe('social-generate-content', () => {
    const input = (
      platform: string,
      language = 'en',
      overrides: Partial<SocialContentInput> = {},
    ): SocialContentInput => ({
      product: {
        name: 'Harbor Mug',
        description: 'A sturdy stoneware mug with a speckled glaze. Dishwasher safe.',
        price: 24.5,
        currency: 'EUR',
        category: 'Kitchen & Dining',
        seo_keywords: ['mug', 'stoneware', 'coffee lover'],
      },
      platform,
      tone: 'friendly',
      language,
      textLimit: platform === 'x' ? 280 : 2200,
      ...overrides,
    });

    it('writes a post with the product, its price, no hashtags in the text, and #-tags', async () => {
      const post = await provider.run(SOCIAL_GENERATE_CONTENT_TASK, input('instagram'));
      expect(post.text).toContain('Harbor Mug');
      expect(post.text).toContain('24.50');
      expect(post.text).not.toContain('#');
      expect(post.hashtags.length).toBeGreaterThanOrEqual(3);
      expect(post.hashtags.length).toBeLessThanOrEqual(8);
      for (const tag of post.hashtags) expect(tag).toMatch(/^#[^\s#]+$/u);
      expect(post.hashtags).toContain('#coffeelover');
      expect(post.best_hour).toBe(11);
    });

    it('suggests an hour per platform', async () => {
      const hours = await Promise.all(
        ['x', 'facebook', 'tiktok', 'threads', 'youtube'].map(
          async (p) => (await provider.run(SOCIAL_GENERATE_CONTENT_TASK, input(p))).best_hour,
        ),
      );
      expect(hours).toEqual([9, 13, 19, 12, 17]);
    });

    it('is deterministic, follows the language and the tone', async () => {
      expect(await provider.run(SOCIAL_GENERATE_CONTENT_TASK, input('x'))).toEqual(
        await provider.run(SOCIAL_GENERATE_CONTENT_TASK, input('x')),
      );
      const fr = await provider.run(SOCIAL_GENERATE_CONTENT_TASK, input('x', 'fr'));
      expect(fr.text).toContain('24,50');
      expect(fr.text).not.toBe((await provider.run(SOCIAL_GENERATE_CONTENT_TASK, input('x'))).text);
      const urgent = await provider.run(SOCIAL_GENERATE_CONTENT_TASK, input('facebook', 'en', { tone: 'urgent sale' }));
      expect(urgent.text).toMatch(/before it's gone/);
    });

    it('fits the text limit on X even with a long product', async () => {
      const post = await provider.run(
        SOCIAL_GENERATE_CONTENT_TASK,
        input('x', 'en', {
          product: {
            name: 'The Extraordinarily Long Named Handmade Stoneware Coffee Mug Collection Piece Number Seven',
            description: `${'A very long description sentence without any end '.repeat(20)}.`,
            price: 1234.5,
            currency: 'USD',
            category: null,
            seo_keywords: [],
          },
          textLimit: 120,
        }),
      );
      expect(textLength('x', post.text)).toBeLessThanOrEqual(120);
      expect(post.hashtags.length).toBeGreaterThanOrEqual(3);
    });
  });

  it('stops when the request is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      provider.run(
        GENERATE_BLOG_AUTOPILOT_TASK,
        { topic: 't', tone: 'calm', length: 'short', language: 'en' },
        controller.signal,
      ),
    ).rejects.toThrow();
  });
});
