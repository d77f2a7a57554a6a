import sharp from 'sharp';
import { DataSource } from 'typeorm';
import { ImageServer, twoColourPhoto } from './fakes/image-server.js';
import { FakeOpenAiServer, SAMPLE_ANSWERS, SCHEMA_NAMES, type FakeBehaviour } from './fakes/openai-server.js';
import { merchantWithStore, startApp, type TestApp } from './support/app.js';
import { SYSTEM_DATA_SOURCE } from './support/database.js';

/**
 * The `openai` provider end to end: the real app talks real HTTP to a fake OpenAI-compatible API.
 * Checks what the adapter sends (key, model, image part, JSON schema) and that every way the
 * provider can fail answers 502 with the charge refunded.
 */
describe('AI functions with an OpenAI-compatible provider', () => {
  const API_KEY = 'sk-test-0123456789';
  const TIMEOUT_MS = 800;
  let fake: FakeOpenAiServer;
  let images: ImageServer;
  let photo: Buffer;
  let api: TestApp;
  let db: DataSource;
  let store: { token: string; storeId: string };

  const call = (path: string, body: Record<string, unknown>, headers?: Record<string, string>) =>
    api.request('POST', `/functions/v1/${path}`, {
      token: store.token,
      body: { store_id: store.storeId, ...body },
      headers,
    });
  const article = { topic: 'Caring for linen shirts', tone: 'friendly', length: 'short', language: 'en' };
  const overview = async () =>
    (await api.request('GET', `/functions/v1/credits?store_id=${store.storeId}`, { token: store.token })).body as {
      balance: number;
      ledger: { kind: string; amount: number; function: string | null; reference: string | null }[];
      usage: Record<string, { used_last_hour: number }>;
    };

  beforeAll(async () => {
    fake = await FakeOpenAiServer.start({ apiKey: API_KEY, retryAfterMs: 5 });
    photo = await twoColourPhoto('png');
    images = await new ImageServer({ '/photo.png': { headers: { 'content-type': 'image/png' }, body: photo } }).start();
    api = await startApp({
      AI_PROVIDER: 'openai',
      AI_BASE_URL: fake.url,
      AI_API_KEY: API_KEY,
      AI_MODEL: 'test-vision-model',
      AI_IMAGE_MODEL: 'gpt-image-1',
      AI_TIMEOUT_MS: String(TIMEOUT_MS),
      AI_MAX_RETRIES: '1',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
    });
    db = api.app.get<DataSource>(SYSTEM_DATA_SOURCE);
  });
  beforeEach(async () => {
    fake.reset();
    store = await merchantWithStore(api, 'Model store');
  });
  afterAll(async () => {
    await api?.close();
    await images?.stop();
    await fake?.close();
  });

  describe('what the adapter sends', () => {
    it(
      'generate-product: the chat model, the key, the photo ' + 'as an image part, the product schema in strict mode',
      async () => {
        const result = await call('generate-product', { image_url: `${images.url}/photo.png`, language: 'fr' });
        expect(result.status).toBe(200);
        const sample = SAMPLE_ANSWERS[SCHEMA_NAMES.product];
        expect(result.body.product).toEqual({ ...sample, ai_credits_used: 2 });

        expect(fake.chatRequests).toHaveLength(1);
        const [sent] = fake.chatRequests;
        expect(sent.headers.authorization).toBe(`Bearer ${API_KEY}`);
        expect(sent.body.model).toBe('test-vision-model');
        expect(sent.body.response_format).toMatchObject({
          type: 'json_schema',
          json_schema: { name: SCHEMA_NAMES.product, strict: true },
        });
        const schema = sent.body.response_format.json_schema.schema;
        expect(schema.type).toBe('object');
        expect(schema.additionalProperties).toBe(false);
        expect([...schema.required].sort()).toEqual(Object.keys(sample).sort());
        // The photo goes as a data URL whose bytes are exactly those the image server served.
        const parts = sent.body.messages.flatMap((message: { content: unknown }) =>
          Array.isArray(message.content) ? message.content : [],
        );
        const imagePart = parts.find((part: { type: string }) => part.type === 'image_url');
        const match = /^data:image\/png;base64,(.+)$/.exec(imagePart.image_url.url);
        expect(match).not.toBeNull();
        expect(Buffer.from(match![1], 'base64').equals(photo)).toBe(true);
        // The requested language reaches the model.
        expect(JSON.stringify(sent.body.messages)).toContain('fr');
        expect((await overview()).balance).toBe(48);
      },
    );

    it(
      'a model writes any language: Italian, which the ' + 'offline provider refuses, is asked for and charged',
      async () => {
        const result = await call('generate-blog-autopilot', { ...article, language: 'it' });
        expect(result.status).toBe(200);
        expect(fake.chatRequests).toHaveLength(1);
        expect(JSON.stringify(fake.chatRequests[0].body.messages)).toContain('All fields in the language it;');
        expect((await overview()).balance).toBe(45);
      },
    );

    it(
      'generate-blog-cover: the image model with the title, ' +
        'style and colours; the answer is stored as a 1200×630 PNG',
      async () => {
        const result = await call('generate-blog-cover', {
          title: 'Ten summer looks for the beach',
          style: 'watercolour',
          colors: ['#0ea5e9', '#f97316'],
        });
        expect(result.status).toBe(200);
        expect(result.body.ai_credits_used).toBe(3);
        expect(fake.imageRequests).toHaveLength(1);
        const sent = fake.imageRequests[0].body;
        expect(sent.model).toBe('gpt-image-1');
        expect(sent.prompt).toContain('Ten summer looks for the beach');
        expect(sent.prompt).toContain('watercolour');
        expect(sent.prompt).toContain('#0ea5e9');
        expect(sent.prompt).toContain('#f97316');
        const served = await fetch(`${api.url}${new URL(result.body.image_url).pathname}`);
        expect(served.status).toBe(200);
        const png = Buffer.from(await served.arrayBuffer());
        const meta = await sharp(png).metadata();
        expect([meta.format, meta.width, meta.height]).toEqual(['png', 1200, 630]);
        // The fake's picture is solid #2563eb: the stored cover is that picture, resized.
        const { dominant } = await sharp(png).stats();
        expect(Math.abs(dominant.r - 0x25) + Math.abs(dominant.g - 0x63) + Math.abs(dominant.b - 0xeb)).toBeLessThan(
          40,
        );
      },
    );

    it(
      'generate-blog-autopilot, research-social-context, ' +
        'social-generate-content: one schema each, answers shaped by the contract',
      async () => {
        const written = await call('generate-blog-autopilot', article);
        expect(written.status).toBe(200);
        expect(written.body.article).toEqual(SAMPLE_ANSWERS[SCHEMA_NAMES.article]);
        expect(written.body.ai_credits_used).toBe(5);

        const researched = await call('research-social-context', {
          query: 'linen summer style',
          platforms: ['instagram', 'tiktok'],
        });
        expect(researched.status).toBe(200);
        expect(researched.body.insights).toEqual(SAMPLE_ANSWERS[SCHEMA_NAMES.insights]);
        expect(researched.body.ai_credits_used).toBe(2);

        await api.request('PATCH', `/functions/v1/stores/${store.storeId}`, {
          token: store.token,
          body: { timezone: 'UTC' },
        });
        const made = await api.request('POST', `/functions/v1/stores/${store.storeId}/products`, {
          token: store.token,
          body: { name: 'Linen shirt', description: 'Washed linen.', price: 49, status: 'active' },
        });
        // The product decides the store: this body has no store_id.
        const drafted = await api.request('POST', '/functions/v1/social-generate-content', {
          token: store.token,
          body: { product_id: made.body.product.id, platform: 'x', tone: 'playful', language: 'en' },
        });
        expect(drafted.status).toBe(200);
        const sample = SAMPLE_ANSWERS[SCHEMA_NAMES.socialContent] as {
          text: string;
          hashtags: string[];
          best_hour: number;
        };
        expect(drafted.body.content.text).toBe(sample.text);
        expect(drafted.body.content.hashtags).toEqual(sample.hashtags);
        // best_hour 18 in a UTC store: the next 18:00 UTC at least 30 minutes away.
        const at = new Date(drafted.body.content.suggested_time);
        expect(at.getUTCHours()).toBe(sample.best_hour);
        expect(at.getUTCMinutes()).toBe(0);
        expect(at.getTime()).toBeGreaterThan(Date.now() + 29 * 60_000);

        const names = fake.chatRequests.map((request) => request.body.response_format.json_schema.name);
        expect(names).toEqual([SCHEMA_NAMES.article, SCHEMA_NAMES.insights, SCHEMA_NAMES.socialContent]);
        // The product the post is about reaches the model.
        expect(JSON.stringify(fake.chatRequests[2].body.messages)).toContain('Linen shirt');
        expect((await overview()).balance).toBe(50 - 5 - 2 - 1);
      },
    );

    it('a 429 is retried once and the call then succeeds, charged once', async () => {
      fake.enqueue('chat', { kind: 'status', status: 429 });
      const result = await call('generate-blog-autopilot', article);
      expect(result.status).toBe(200);
      expect(fake.chatRequests.map((request) => request.status)).toEqual([429, 200]);
      const { balance, ledger } = await overview();
      expect(balance).toBe(45);
      expect(ledger.filter((entry) => entry.kind === 'charge')).toHaveLength(1);
    });
  });

  describe('a failed provider call → 502 UPSTREAM_FAILED and the charge refunded', () => {
    const slow = (then: FakeBehaviour): FakeBehaviour => ({ kind: 'delay', ms: TIMEOUT_MS * 4, then });
    const validArticle: FakeBehaviour = { kind: 'json', content: SAMPLE_ANSWERS[SCHEMA_NAMES.article] };
    it.each<[string, FakeBehaviour[], number, string]>([
      [
        'a timeout (and its retry)',
        [slow(validArticle), slow(validArticle)],
        2,
        `did not answer within ${TIMEOUT_MS} ms`,
      ],
      [
        'HTTP 500 (and its retry)',
        [
          { kind: 'status', status: 500 },
          { kind: 'status', status: 500 },
        ],
        2,
        'HTTP 500',
      ],
      [
        'an answer that is not JSON',
        [{ kind: 'raw-content', content: 'Sure! Here is your article: <h2>Linen</h2>' }],
        1,
        'the answer is not JSON',
      ],
      [
        'JSON that breaks the schema',
        [{ kind: 'json', content: { ...SAMPLE_ANSWERS[SCHEMA_NAMES.article], content: 42, extra: true } }],
        1,
        'does not match',
      ],
      [
        'a cut-off answer',
        [{ kind: 'json', content: SAMPLE_ANSWERS[SCHEMA_NAMES.article], finishReason: 'length' }],
        1,
        'cut off',
      ],
      ['a refusal', [{ kind: 'refusal', message: 'I cannot help with that.' }], 1, 'declined'],
      ['an invalid key (401, not retried)', [{ kind: 'status', status: 401 }], 1, 'HTTP 401'],
    ])('%s', async (_label, behaviours, attempts, reason) => {
      fake.enqueue('chat', ...behaviours);
      const result = await call('generate-blog-autopilot', article, { 'x-request-id': 'req-failing' });
      expect(result.status).toBe(502);
      expect(result.body.error.code).toBe('UPSTREAM_FAILED');
      expect(result.body.error.message).toContain(reason);
      expect(result.body.error.message).toContain('The 5 credits were refunded.');
      // Nothing the model said, nor the key, leaks into the error.
      expect(result.body.error.message).not.toContain('Sure!');
      expect(result.body.error.message).not.toContain(API_KEY);
      expect(fake.chatRequests).toHaveLength(attempts);

      const { balance, ledger, usage } = await overview();
      expect(balance).toBe(50);
      expect(ledger).toHaveLength(3);
      const charge = ledger.find((entry) => entry.kind === 'charge');
      const refund = ledger.find((entry) => entry.kind === 'refund');
      expect(charge).toMatchObject({
        kind: 'charge',
        amount: -5,
        function: 'generate-blog-autopilot',
        reference: 'req-failing',
      });
      expect(refund).toMatchObject({ kind: 'refund', amount: 5, function: 'generate-blog-autopilot' });
      expect(usage['generate-blog-autopilot'].used_last_hour).toBe(0);
      const [{ sum }] = (await db.query('SELECT sum(amount)::int AS sum FROM credit_ledger WHERE store_id = $1', [
        store.storeId,
      ])) as {
        sum: number;
      }[];
      expect(sum).toBe(balance);
    });

    it("a store key's failed call: 502, and the key's own charge refunded to its store", async () => {
      const made = await api.request('POST', `/functions/v1/stores/${store.storeId}/api-keys`, {
        token: store.token,
        body: { name: 'Server', permissions: ['ai'] },
      });
      fake.enqueue('chat', { kind: 'status', status: 500 }, { kind: 'status', status: 500 });
      const result = await api.request('POST', '/functions/v1/generate-blog-autopilot', {
        token: made.body.secret,
        body: { ...article, store_id: store.storeId },
      });
      expect(result.status).toBe(502);
      expect(result.body.error.message).toContain('The 5 credits were refunded.');
      const { balance, ledger } = await overview();
      expect(balance).toBe(50);
      const [charge] = (await db.query(
        `SELECT c.api_key_id, r.amount AS refunded FROM credit_ledger c JOIN credit_ledger r ON r.refund_of = c.id
          WHERE c.store_id = $1 AND c.kind = 'charge'`,
        [store.storeId],
      )) as { api_key_id: string; refunded: number }[];
      expect(charge).toEqual({ api_key_id: made.body.api_key.id, refunded: 5 });
      expect(ledger.map((entry) => entry.kind).sort()).toEqual(['charge', 'grant', 'refund']);
    });

    it('an image answer that is not a picture → 502, refunded, nothing stored', async () => {
      fake.enqueue('images', { kind: 'image', png: Buffer.from('not a png at all') });
      const before = Number(
        (
          (await db.query('SELECT count(*) AS n FROM ai_images WHERE store_id = $1', [store.storeId])) as {
            n: string;
          }[]
        )[0].n,
      );
      const result = await call('generate-blog-cover', { title: 'Hello', style: 'bold', colors: ['#000000'] });
      expect(result.status).toBe(502);
      expect(result.body.error.message).toContain('The 3 credits were refunded.');
      expect((await overview()).balance).toBe(50);
      const after = Number(
        (
          (await db.query('SELECT count(*) AS n FROM ai_images WHERE store_id = $1', [store.storeId])) as {
            n: string;
          }[]
        )[0].n,
      );
      expect(after).toBe(before);
    });

    it('a product answer that breaks the contract (a negative price) → 502, refunded', async () => {
      fake.enqueue('chat', { kind: 'json', content: { ...SAMPLE_ANSWERS[SCHEMA_NAMES.product], price: -3 } });
      const result = await call('generate-product', { image_url: `${images.url}/photo.png`, language: 'en' });
      expect(result.status).toBe(502);
      expect(result.body.error.message).toContain('The 2 credits were refunded.');
      expect((await overview()).balance).toBe(50);
    });

    it(
      'an Idempotency-Key of a failed call is free again: ' + 'the retry reaches the model and is charged once',
      async () => {
        fake.enqueue('chat', { kind: 'status', status: 500 }, { kind: 'status', status: 500 });
        const headers = { 'idempotency-key': 'autopilot-retry-1' };
        expect((await call('generate-blog-autopilot', article, headers)).status).toBe(502);
        const retried = await call('generate-blog-autopilot', article, headers);
        expect(retried.status).toBe(200);
        const replayed = await call('generate-blog-autopilot', article, headers);
        expect(replayed.status).toBe(200);
        expect(replayed.headers.get('idempotent-replayed')).toBe('true');
        expect(replayed.body).toEqual(retried.body);
        expect(fake.chatRequests).toHaveLength(3);
        expect((await overview()).balance).toBe(45);
      },
    );
  });
});

describe('AI_PROVIDER=openai without a key', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp({ AI_PROVIDER: 'openai', AI_API_KEY: '' });
  });
  afterAll(() => api?.close());

  it('answers 503 NOT_CONFIGURED and charges nothing', async () => {
    const { token, storeId } = await merchantWithStore(api, 'Keyless');
    const result = await api.request('POST', '/functions/v1/generate-blog-autopilot', {
      token,
      body: { topic: 'Linen', tone: 'calm', length: 'short', language: 'en', store_id: storeId },
    });
    expect(result.status).toBe(503);
    expect(result.body.error.code).toBe('NOT_CONFIGURED');
    expect(result.body.error.message).toContain('AI_API_KEY');
    const credits = await api.request('GET', `/functions/v1/credits?store_id=${storeId}`, { token });
    expect(credits.body.balance).toBe(50);
    expect(credits.body.ledger).toHaveLength(1);
  });
});
