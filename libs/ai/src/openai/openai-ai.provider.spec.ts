import sharp from 'sharp';
import {
  FakeOpenAiServer,
  SAMPLE_ANSWERS,
  SCHEMA_NAMES,
  type FakeBehaviour,
} from '../../../../test/fakes/openai-server.js';
import {
  ARTICLE_OUTPUT,
  GENERATE_BLOG_AUTOPILOT_TASK,
} from '../functions/generate-blog-autopilot/generate-blog-autopilot.task.js';
import { GENERATE_BLOG_COVER_TASK } from '../functions/generate-blog-cover/generate-blog-cover.task.js';
import { GENERATE_PRODUCT_TASK, PRODUCT_OUTPUT } from '../functions/generate-product/generate-product.task.js';
import {
  INSIGHTS_OUTPUT,
  RESEARCH_SOCIAL_CONTEXT_TASK,
} from '../functions/research-social-context/research-social-context.task.js';
import {
  SOCIAL_CONTENT_OUTPUT,
  SOCIAL_GENERATE_CONTENT_TASK,
  type SocialContentInput,
} from '../functions/social-generate-content/social-generate-content.task.js';
import { AiProviderError, type ImageFacts } from '../providers/ai-provider.js';
import { OpenAiProvider, type OpenAiProviderOptions } from './openai-ai.provider.js';
import { wireSchema } from './schemas.js';

const API_KEY = 'sk-test-5f1c0e9a7b3d4c21';

describe('OpenAiProvider', () => {
  let fake: FakeOpenAiServer;
  let photo: ImageFacts;

  const provider = (options: Partial<OpenAiProviderOptions> = {}) =>
    new OpenAiProvider({
      baseUrl: fake.url,
      apiKey: API_KEY,
      model: 'gpt-4o-mini',
      imageModel: 'gpt-image-1',
      timeoutMs: 5_000,
      maxRetries: 0,
      ...options,
    });

  /** The provider's failure, checked for the things every failure must satisfy. */
  async function failure(promise: Promise<unknown>): Promise<AiProviderError> {
    const error = await promise.then(
      () => expect.fail('expected an AiProviderError'),
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(AiProviderError);
    const providerError = error as AiProviderError;
    expect(providerError.message).not.toContain(API_KEY);
    return providerError;
  }

  const article = { topic: 'Caring for linen', tone: 'friendly', length: 'medium' as const, language: 'en' };
  const social: SocialContentInput = {
    product: {
      name: 'Linen shirt',
      description: 'A breezy linen shirt.',
      price: 59,
      currency: 'EUR',
      category: 'Shirts',
      seo_keywords: ['linen', 'shirt', 'summer'],
    },
    platform: 'x',
    tone: 'playful',
    language: 'fr',
    textLimit: 280,
  };

  beforeAll(async () => {
    fake = await FakeOpenAiServer.start({ basePath: '/v1' });
    const bytes = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#e11d48' } })
      .jpeg()
      .toBuffer();
    photo = {
      bytes,
      mime: 'image/jpeg',
      format: 'jpeg',
      width: 40,
      height: 30,
      dominantColors: ['#e11d48', '#1d4ed8'],
      lightness: 0.4,
      hasAlpha: false,
    };
  });

  afterEach(() => fake.reset());
  afterAll(() => fake.close());

  it("the fake's schema names are the text functions' own", () => {
    expect(SCHEMA_NAMES).toEqual({
      product: PRODUCT_OUTPUT.name,
      article: ARTICLE_OUTPUT.name,
      insights: INSIGHTS_OUTPUT.name,
      socialContent: SOCIAL_CONTENT_OUTPUT.name,
    });
  });

  describe('text functions', () => {
    it('generateProduct sends the photo as a vision input and answers the validated draft', async () => {
      const draft = await provider().run(GENERATE_PRODUCT_TASK, { image: photo, language: 'fr', currency: 'EUR' });
      expect(draft).toEqual(SAMPLE_ANSWERS[SCHEMA_NAMES.product]);

      const [request] = fake.chatRequests;
      expect(fake.requests).toHaveLength(1);
      expect(request.method).toBe('POST');
      expect(request.path).toBe('/v1/chat/completions');
      expect(request.headers.authorization).toBe(`Bearer ${API_KEY}`);
      expect(request.body.model).toBe('gpt-4o-mini');
      expect(request.body.response_format).toEqual({
        type: 'json_schema',
        json_schema: { name: 'product_draft', strict: true, schema: wireSchema(PRODUCT_OUTPUT.schema) },
      });
      const [system, user] = request.body.messages;
      expect(system.role).toBe('system');
      expect(user.role).toBe('user');
      const text = user.content.find((part: any) => part.type === 'text').text as string;
      expect(text).toContain('fr');
      expect(text).toContain('EUR');
      expect(text).toContain('jpeg, 40×30 px');
      expect(text).toContain('#e11d48, #1d4ed8');
      const image = user.content.find((part: any) => part.type === 'image_url').image_url.url as string;
      const [, mime, base64] = /^data:([^;]+);base64,(.+)$/.exec(image)!;
      expect(mime).toBe('image/jpeg');
      expect(Buffer.from(base64, 'base64').equals(photo.bytes)).toBe(true);
    });

    it('generateProduct rounds prices to cents', async () => {
      fake.enqueue('chat', {
        kind: 'json',
        content: { ...SAMPLE_ANSWERS[SCHEMA_NAMES.product], price: 19.994, compare_price: 24.999 },
      });
      const draft = await provider().run(GENERATE_PRODUCT_TASK, { image: photo, language: 'en', currency: 'USD' });
      expect(draft.price).toBe(19.99);
      expect(draft.compare_price).toBe(25);
    });

    it('generateArticle asks for h2/p/ul HTML of the requested length', async () => {
      const draft = await provider().run(GENERATE_BLOG_AUTOPILOT_TASK, article);
      expect(draft).toEqual(SAMPLE_ANSWERS[SCHEMA_NAMES.article]);

      const [request] = fake.chatRequests;
      expect(request.headers.authorization).toBe(`Bearer ${API_KEY}`);
      expect(request.body.model).toBe('gpt-4o-mini');
      expect(request.body.response_format.json_schema).toEqual({
        name: 'article_draft',
        strict: true,
        schema: wireSchema(ARTICLE_OUTPUT.schema),
      });
      const [system, user] = request.body.messages;
      expect(system.content).toContain('<h2>');
      expect(system.content).toContain('<ul>');
      expect(user.content).toContain('Caring for linen');
      expect(user.content).toContain('friendly');
      expect(user.content).toContain('about 750 words');
    });

    it('researchSocialContext sends the query and platforms', async () => {
      const draft = await provider().run(RESEARCH_SOCIAL_CONTEXT_TASK, {
        query: 'linen summer',
        platforms: ['instagram', 'tiktok'],
      });
      expect(draft).toEqual(SAMPLE_ANSWERS[SCHEMA_NAMES.insights]);

      const [request] = fake.chatRequests;
      expect(request.path).toBe('/v1/chat/completions');
      expect(request.body.response_format.json_schema).toEqual({
        name: 'social_insights',
        strict: true,
        schema: wireSchema(INSIGHTS_OUTPUT.schema),
      });
      const user = request.body.messages[1].content as string;
      expect(user).toContain('linen summer');
      expect(user).toContain('instagram');
      expect(user).toContain('tiktok');
    });

    it('generateSocialContent sends the platform, tone, language, limit and product', async () => {
      const draft = await provider().run(SOCIAL_GENERATE_CONTENT_TASK, social);
      expect(draft).toEqual(SAMPLE_ANSWERS[SCHEMA_NAMES.socialContent]);

      const [request] = fake.chatRequests;
      expect(request.body.response_format.json_schema).toEqual({
        name: 'social_content',
        strict: true,
        schema: wireSchema(SOCIAL_CONTENT_OUTPUT.schema),
      });
      const user = request.body.messages[1].content as string;
      for (const expected of [
        '"platform":"x"',
        '"tone":"playful"',
        '"language":"fr"',
        '280',
        'Linen shirt',
        'A breezy linen shirt.',
        '59',
        'EUR',
      ]) {
        expect(user).toContain(expected);
      }
      expect(user).toContain('must not contain hashtags');
    });

    it('sends the schema without the length keywords strict mode rejects, and keeps the limits in descriptions', () => {
      const sent = JSON.stringify(wireSchema(ARTICLE_OUTPUT.schema));
      expect(sent).not.toContain('maxLength');
      expect(sent).not.toContain('minLength');
      expect(sent).toContain('At most 70 characters');
      expect(wireSchema(SOCIAL_CONTENT_OUTPUT.schema)).toMatchObject({
        additionalProperties: false,
        required: ['text', 'hashtags', 'best_hour'],
        properties: { best_hour: { type: 'integer', minimum: 0, maximum: 23 } },
      });
    });
  });

  describe('covers', () => {
    it('generateCover asks the image model for a landscape image and answers its bytes', async () => {
      const cover = await provider().run(GENERATE_BLOG_COVER_TASK, {
        title: 'Summer linen',
        style: 'minimal',
        colors: ['#112233', '#fa0'],
      });
      expect(cover.bytes.equals(fake.defaultPng)).toBe(true);
      const meta = await sharp(cover.bytes).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['png', 1536, 1024]);

      const [request] = fake.imageRequests;
      expect(fake.requests).toHaveLength(1);
      expect(request.path).toBe('/v1/images/generations');
      expect(request.headers.authorization).toBe(`Bearer ${API_KEY}`);
      expect(request.body).toMatchObject({ model: 'gpt-image-1', size: '1536x1024', n: 1 });
      // GPT image models reject response_format.
      expect(request.body).not.toHaveProperty('response_format');
      expect(request.body.prompt).toContain('Summer linen');
      expect(request.body.prompt).toContain('minimal');
      expect(request.body.prompt).toContain('#112233, #fa0');
    });

    it('asks DALL·E models for base64 in a size they accept', async () => {
      const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } })
        .png()
        .toBuffer();
      fake.enqueue('images', { kind: 'image', png });
      const cover = await provider({ imageModel: 'dall-e-3' }).run(GENERATE_BLOG_COVER_TASK, {
        title: 'T',
        style: 'bold',
        colors: ['#000'],
      });
      expect(cover.bytes.equals(png)).toBe(true);
      expect(fake.imageRequests[0].body).toMatchObject({
        model: 'dall-e-3',
        response_format: 'b64_json',
        size: '1792x1024',
      });
    });

    it('an image answer without base64 is an invalid answer', async () => {
      fake.enqueue('images', {
        kind: 'status',
        status: 200,
        body: { created: 1, data: [{ url: 'https://example.com/x.png' }] },
      });
      const error = await failure(
        provider().run(GENERATE_BLOG_COVER_TASK, { title: 'T', style: 'bold', colors: ['#000'] }),
      );
      expect(error.reason).toBe('invalid_answer');
    });

    it('an image answer that is not base64 is an invalid answer', async () => {
      fake.enqueue('images', {
        kind: 'status',
        status: 200,
        body: { created: 1, data: [{ b64_json: 'not base64!' }] },
      });
      const error = await failure(
        provider().run(GENERATE_BLOG_COVER_TASK, { title: 'T', style: 'bold', colors: ['#000'] }),
      );
      expect(error.reason).toBe('invalid_answer');
    });
  });

  describe('transport failures', () => {
    it('a provider slower than timeoutMs is a timeout', async () => {
      fake.enqueue('chat', {
        kind: 'delay',
        ms: 2_000,
        then: { kind: 'json', content: SAMPLE_ANSWERS[SCHEMA_NAMES.article] },
      });
      const started = Date.now();
      const error = await failure(provider({ timeoutMs: 300 }).run(GENERATE_BLOG_AUTOPILOT_TASK, article));
      expect(error.reason).toBe('timeout');
      expect(Date.now() - started).toBeLessThan(1_500);
    });

    it('passes the caller abort signal through', async () => {
      fake.enqueue('chat', {
        kind: 'delay',
        ms: 2_000,
        then: { kind: 'json', content: SAMPLE_ANSWERS[SCHEMA_NAMES.article] },
      });
      const error = await failure(provider().run(GENERATE_BLOG_AUTOPILOT_TASK, article, AbortSignal.timeout(200)));
      expect(error.reason).toBe('timeout');
      expect(fake.chatRequests).toHaveLength(1);
    });

    it('500 on every attempt is unavailable, after exactly maxRetries retries', async () => {
      fake.enqueue('chat', { kind: 'status', status: 500 }, { kind: 'status', status: 500 });
      const error = await failure(provider({ maxRetries: 1 }).run(GENERATE_BLOG_AUTOPILOT_TASK, article));
      expect(error.reason).toBe('unavailable');
      expect(error.message).toContain('HTTP 500');
      expect(fake.chatRequests).toHaveLength(2);
    });

    it('a 500 followed by a success succeeds on the retry', async () => {
      fake.enqueue('chat', { kind: 'status', status: 500 });
      const draft = await provider({ maxRetries: 1 }).run(GENERATE_BLOG_AUTOPILOT_TASK, article);
      expect(draft).toEqual(SAMPLE_ANSWERS[SCHEMA_NAMES.article]);
      expect(fake.chatRequests).toHaveLength(2);
    });

    it('429 is rate_limited', async () => {
      fake.enqueue('chat', {
        kind: 'status',
        status: 429,
        body: { error: { message: 'Rate limit reached', type: 'requests' } },
      });
      const error = await failure(provider().run(RESEARCH_SOCIAL_CONTEXT_TASK, { query: 'q', platforms: ['x'] }));
      expect(error.reason).toBe('rate_limited');
    });

    it('401 (a bad key) is refused, and the message never shows the key', async () => {
      const strict = await FakeOpenAiServer.start({ apiKey: 'sk-the-right-key' });
      try {
        const error = await failure(provider({ baseUrl: strict.url }).run(SOCIAL_GENERATE_CONTENT_TASK, social));
        expect(error.reason).toBe('refused');
        expect(error.message).toBe('The AI provider refused the request (HTTP 401)');
        expect(strict.chatRequests[0].status).toBe(401);
      } finally {
        await strict.close();
      }
    });

    it('an unreachable provider is unavailable', async () => {
      const gone = await FakeOpenAiServer.start();
      const url = gone.url;
      await gone.close();
      const error = await failure(provider({ baseUrl: url }).run(GENERATE_BLOG_AUTOPILOT_TASK, article));
      expect(error.reason).toBe('unavailable');
    });

    it('a 5xx on the images route is unavailable too', async () => {
      fake.enqueue('images', { kind: 'status', status: 503 });
      const error = await failure(
        provider().run(GENERATE_BLOG_COVER_TASK, { title: 'T', style: 'bold', colors: ['#000'] }),
      );
      expect(error.reason).toBe('unavailable');
    });
  });

  describe('answer validation', () => {
    const product = SAMPLE_ANSWERS[SCHEMA_NAMES.product];
    const cases: [string, FakeBehaviour, AiProviderError['reason'], () => Promise<unknown>][] = [
      [
        'non-JSON content',
        { kind: 'raw-content', content: 'Here is your article: it is great.' },
        'invalid_answer',
        () => provider().run(GENERATE_BLOG_AUTOPILOT_TASK, article),
      ],
      [
        'empty content',
        { kind: 'raw-content', content: '' },
        'invalid_answer',
        () => provider().run(GENERATE_BLOG_AUTOPILOT_TASK, article),
      ],
      [
        'a truncated answer',
        { kind: 'raw-content', content: '{"title": "Cut', finishReason: 'length' },
        'invalid_answer',
        () => provider().run(GENERATE_BLOG_AUTOPILOT_TASK, article),
      ],
      [
        'seo_keywords of 1 item',
        { kind: 'json', content: { ...product, seo_keywords: ['bag'] } },
        'invalid_answer',
        () => provider().run(GENERATE_PRODUCT_TASK, { image: photo, language: 'en', currency: 'EUR' }),
      ],
      [
        'compare_price below price',
        { kind: 'json', content: { ...product, price: 30, compare_price: 20 } },
        'invalid_answer',
        () => provider().run(GENERATE_PRODUCT_TASK, { image: photo, language: 'en', currency: 'EUR' }),
      ],
      [
        'a price of 0',
        { kind: 'json', content: { ...product, price: 0 } },
        'invalid_answer',
        () => provider().run(GENERATE_PRODUCT_TASK, { image: photo, language: 'en', currency: 'EUR' }),
      ],
      [
        'a missing field',
        { kind: 'json', content: { ...product, category: undefined } },
        'invalid_answer',
        () => provider().run(GENERATE_PRODUCT_TASK, { image: photo, language: 'en', currency: 'EUR' }),
      ],
      [
        'an extra field',
        { kind: 'json', content: { ...SAMPLE_ANSWERS[SCHEMA_NAMES.article], author: 'me' } },
        'invalid_answer',
        () => provider().run(GENERATE_BLOG_AUTOPILOT_TASK, article),
      ],
      [
        'a seo_title over 70 characters',
        { kind: 'json', content: { ...SAMPLE_ANSWERS[SCHEMA_NAMES.article], seo_title: 'x'.repeat(71) } },
        'invalid_answer',
        () => provider().run(GENERATE_BLOG_AUTOPILOT_TASK, article),
      ],
      [
        'a hashtag without #',
        { kind: 'json', content: { ...SAMPLE_ANSWERS[SCHEMA_NAMES.insights], popular_hashtags: ['#ok', 'nohash'] } },
        'invalid_answer',
        () => provider().run(RESEARCH_SOCIAL_CONTEXT_TASK, { query: 'q', platforms: ['x'] }),
      ],
      [
        'best_hour 24',
        { kind: 'json', content: { ...SAMPLE_ANSWERS[SCHEMA_NAMES.socialContent], best_hour: 24 } },
        'invalid_answer',
        () => provider().run(SOCIAL_GENERATE_CONTENT_TASK, social),
      ],
      ['a refusal', { kind: 'refusal' }, 'refused', () => provider().run(SOCIAL_GENERATE_CONTENT_TASK, social)],
    ];

    it.each(cases)('%s → %s', async (_label, behaviour, reason, call) => {
      fake.enqueue('chat', behaviour);
      const error = await failure(call());
      expect(error.reason).toBe(reason);
      // The message names the problem, never the model's output.
      expect(error.message).not.toContain('great');
      expect(error.message).not.toContain('nohash');
      expect(error.message).not.toContain('xxxxxxxx');
    });

    it('names the failing field', async () => {
      fake.enqueue('chat', { kind: 'json', content: { ...product, seo_keywords: ['bag'] } });
      const error = await failure(
        provider().run(GENERATE_PRODUCT_TASK, { image: photo, language: 'en', currency: 'EUR' }),
      );
      expect(error.message).toContain('/seo_keywords');
    });
  });
});
