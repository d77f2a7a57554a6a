import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import twitterText from 'twitter-text';
import { DataSource } from 'typeorm';
import { httpConfig, IdempotencyStore } from '@app/core';
import { ImageServer, twoColourPhoto } from './fakes/image-server.js';
import {
  merchantWithStore,
  PUBLIC_KEY,
  signUp,
  startApp,
  uniqueEmail,
  type HttpResult,
  type TestApp,
  TEST_ADMIN,
} from './support/app.js';
import { SYSTEM_DATA_SOURCE } from './support/database.js';
import { until } from './support/wait.js';

/**
 * The five AI functions with the local provider, credits and their ledger, access (two stores,
 * members, customers, anon), idempotency and the concurrency of charging.
 */
describe('AI functions (local provider) and credits', () => {
  let api: TestApp;
  let db: DataSource;
  let images: ImageServer;
  let admin: string;
  let owner: { token: string; storeId: string };
  let other: { token: string; storeId: string };
  const tokens: Record<string, string> = {};
  const adminEmail = TEST_ADMIN.email;

  const call = (token: string | undefined, path: string, body?: unknown, headers?: Record<string, string>) =>
    api.request('POST', `/functions/v1/${path}`, { token, body, headers });
  const credits = (token: string, storeId: string, query = '') =>
    api.request('GET', `/functions/v1/credits?store_id=${storeId}${query}`, { token });
  const balanceOf = async (storeId: string) =>
    ((await db.query('SELECT balance FROM credit_accounts WHERE store_id = $1', [storeId])) as { balance: number }[])[0]
      .balance;
  const ledgerSum = async (storeId: string) =>
    Number(
      (
        (await db.query('SELECT coalesce(sum(amount), 0) AS sum FROM credit_ledger WHERE store_id = $1', [
          storeId,
        ])) as { sum: string }[]
      )[0].sum,
    );
  const grant = (storeId: string, amount: number) =>
    api.request('POST', '/functions/v1/credits/grant', {
      token: admin,
      body: { store_id: storeId, amount, reason: 'test top-up' },
    });
  const product = (storeId: string) => ({ image_url: `${images.url}/photo.png`, store_id: storeId, language: 'en' });
  const article = (storeId: string, extra: Record<string, unknown> = {}) => ({
    topic: 'Caring for linen shirts',
    tone: 'friendly',
    length: 'short',
    language: 'en',
    store_id: storeId,
    ...extra,
  });

  beforeAll(async () => {
    images = await new ImageServer({
      '/photo.png': { headers: { 'content-type': 'image/png' }, body: await twoColourPhoto('png') },
      '/photo.jpg': { headers: { 'content-type': 'image/jpeg' }, body: await twoColourPhoto('jpeg') },
      '/photo.bin': { headers: { 'content-type': 'application/octet-stream' }, body: await twoColourPhoto('webp') },
      '/page.html': { headers: { 'content-type': 'text/html' }, body: '<html>not an image</html>' },
      '/liar.png': { headers: { 'content-type': 'image/png' }, body: 'these bytes are text, not a PNG' },
      '/huge.png': { headers: { 'content-type': 'image/png' }, body: Buffer.alloc(10 * 1024 * 1024 + 1) },
      '/moved.png': { status: 302, headers: { location: '/photo.png' }, body: '' },
      '/broken.png': { status: 500, body: 'oops' },
      '/held.png': { headers: { 'content-type': 'image/png' }, body: await twoColourPhoto('png'), hold: true },
    }).start();
    api = await startApp({
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      ADMIN_EMAIL: adminEmail,
      ADMIN_PASSWORD: TEST_ADMIN.password,
    });
    db = api.app.get<DataSource>(SYSTEM_DATA_SOURCE);
    admin = (
      await api.request('POST', '/auth/v1/token?grant_type=password', {
        headers: { apikey: PUBLIC_KEY },
        body: { email: adminEmail, password: TEST_ADMIN.password },
      })
    ).body.access_token;
    owner = await merchantWithStore(api, 'AI store');
    other = await merchantWithStore(api, 'Other store');
    const invite = async (permissions: string[]) => {
      const email = uniqueEmail('member');
      const made = await api.request('POST', `/functions/v1/stores/${owner.storeId}/members`, {
        token: owner.token,
        body: { email, permissions },
      });
      return (await signUp(api, { invite_token: made.body.invite_token }, email)).access_token;
    };
    tokens.aiMember = await invite(['ai']);
    tokens.billingMember = await invite(['billing']);
    tokens.catalogMember = await invite(['catalog']);
    tokens.customer = (await signUp(api, { role: 'customer', store_id: owner.storeId })).access_token;
    await grant(owner.storeId, 1000);
  });
  afterAll(async () => {
    await api?.close();
    await images?.stop();
  });

  describe('credits', () => {
    it(
      'a new store starts with 50 welcome credits as one ' + 'grant entry, and usage at zero against the limits',
      async () => {
        const { token, storeId } = await merchantWithStore(api, 'Fresh');
        const result = await credits(token, storeId);
        expect(result.status).toBe(200);
        expect(result.body.balance).toBe(50);
        expect(result.body.ledger).toEqual([
          {
            id: expect.any(String),
            kind: 'grant',
            amount: 50,
            function: null,
            reference: 'welcome',
            created_at: expect.any(String),
          },
        ]);
        expect(result.body.usage).toEqual({
          'generate-product': { used_last_hour: 0, limit: 100 },
          'generate-blog-cover': { used_last_hour: 0, limit: 50 },
          'generate-blog-autopilot': { used_last_hour: 0, limit: 20 },
          'research-social-context': { used_last_hour: 0, limit: 30 },
          'social-generate-content': { used_last_hour: 0, limit: 60 },
        });
      },
    );

    it(
      'reads: owner, admin and a member with billing; a member ' + 'without it 403, a customer 403, another store 404',
      async () => {
        expect((await credits(owner.token, owner.storeId)).status).toBe(200);
        expect((await credits(admin, owner.storeId)).status).toBe(200);
        expect((await credits(tokens.billingMember, owner.storeId)).status).toBe(200);
        expect((await credits(tokens.aiMember, owner.storeId)).body.error.code).toBe('FORBIDDEN');
        expect((await credits(tokens.customer, owner.storeId)).status).toBe(403);
        const foreign = await credits(other.token, owner.storeId);
        expect(foreign.status).toBe(404);
        expect(foreign.body.error).toMatchObject({ code: 'NOT_FOUND', message: 'Store not found' });
        expect(
          (await api.request('GET', `/functions/v1/credits?store_id=${owner.storeId}`, { token: PUBLIC_KEY })).status,
        ).toBe(401);
      },
    );

    it('grants: the admin only, to an existing store, a whole number from 1', async () => {
      const { token, storeId } = await merchantWithStore(api, 'Granted');
      const granted = await grant(storeId, 25);
      expect(granted.status).toBe(200);
      expect(granted.body).toEqual({ success: true, balance: 75 });
      expect((await credits(token, storeId)).body.ledger[0]).toMatchObject({
        kind: 'grant',
        amount: 25,
        reference: 'test top-up',
      });
      const byOwner = await api.request('POST', '/functions/v1/credits/grant', {
        token,
        body: { store_id: storeId, amount: 5, reason: 'me' },
      });
      expect(byOwner.status).toBe(403);
      expect((await grant(randomUUID(), 5)).status).toBe(404);
      for (const amount of [0, -5, 2.5, '10', 1_000_001]) {
        const bad = await api.request('POST', '/functions/v1/credits/grant', {
          token: admin,
          body: { store_id: storeId, amount, reason: 'x' },
        });
        expect(bad.status).toBe(400);
        expect(bad.body.error.details[0].field).toBe('amount');
      }
      expect(await balanceOf(storeId)).toBe(75);
    });

    it('pages the ledger newest first with a cursor that loses nothing', async () => {
      const { token, storeId } = await merchantWithStore(api, 'Paged');
      for (let i = 0; i < 4; i++) await grant(storeId, i + 1);
      const seen: number[] = [];
      let cursor: string | null = null;
      do {
        const page: HttpResult = await credits(token, storeId, `&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        expect(page.status).toBe(200);
        seen.push(...page.body.ledger.map((entry: { amount: number }) => entry.amount));
        cursor = page.body.next_cursor;
      } while (cursor);
      expect(seen).toEqual([4, 3, 2, 1, 50]);
    });
  });

  describe('access to the functions', () => {
    it('anon 401, customer 403, a member without ai 403, another store 404; a member with ai may', async () => {
      const body = article(owner.storeId);
      const anon = await call(PUBLIC_KEY, 'generate-blog-autopilot', body);
      expect(anon.status).toBe(401);
      expect(anon.body.error.code).toBe('UNAUTHENTICATED');
      expect((await call(undefined, 'generate-blog-autopilot', body)).status).toBe(401);
      expect((await call(tokens.customer, 'generate-blog-autopilot', body)).status).toBe(403);
      const catalog = await call(tokens.catalogMember, 'generate-blog-autopilot', body);
      expect(catalog.status).toBe(403);
      expect(catalog.body.error.message).toContain('"ai" permission');
      expect((await call(other.token, 'generate-blog-autopilot', body)).status).toBe(404);
      expect((await call(tokens.aiMember, 'generate-blog-autopilot', body)).status).toBe(200);
      // Only the allowed call was charged.
      expect(await balanceOf(owner.storeId)).toBe(await ledgerSum(owner.storeId));
    });

    it('social-generate-content: a product of another store 404 (nothing charged), a customer 403', async () => {
      const made = await api.request('POST', `/functions/v1/stores/${other.storeId}/products`, {
        token: other.token,
        body: { name: 'Other mug', price: 10, status: 'active' },
      });
      const before = await balanceOf(owner.storeId);
      const foreign = await call(owner.token, 'social-generate-content', {
        product_id: made.body.product.id,
        platform: 'x',
        tone: 'fun',
        language: 'en',
      });
      expect(foreign.status).toBe(404);
      expect(foreign.body.error.message).toBe('Product not found');
      expect(await balanceOf(owner.storeId)).toBe(before);
      expect(await balanceOf(other.storeId)).toBe(50);
    });
  });

  describe('generate-product', () => {
    it('drafts a product from the photo and charges 2 credits, referenced by the request id', async () => {
      const { token, storeId } = await merchantWithStore(api, 'Photo store');
      const result = await call(token, 'generate-product', product(storeId), { 'x-request-id': 'req-product-1' });
      expect(result.status).toBe(200);
      const p = result.body.product;
      expect(Object.keys(result.body).sort()).toEqual(['product', 'success']);
      expect(Object.keys(p).sort()).toEqual(
        [
          'ai_credits_used',
          'category',
          'compare_price',
          'description',
          'name',
          'name_en',
          'price',
          'seo_keywords',
        ].sort(),
      );
      expect(p.ai_credits_used).toBe(2);
      expect(p.price).toBeGreaterThan(0);
      expect(p.compare_price).toBeGreaterThanOrEqual(p.price);
      expect(Math.round(p.price * 100)).toBe(p.price * 100);
      expect(p.seo_keywords.length).toBeGreaterThanOrEqual(3);
      expect(p.seo_keywords.length).toBeLessThanOrEqual(10);
      const ledger = (await credits(token, storeId)).body;
      expect(ledger.balance).toBe(48);
      expect(ledger.ledger[0]).toMatchObject({
        kind: 'charge',
        amount: -2,
        function: 'generate-product',
        reference: 'req-product-1',
      });
      expect(ledger.usage['generate-product'].used_last_hour).toBe(1);
    });

    it('answers in the requested language, name_en in English; the same photo gives the same draft', async () => {
      const en = await call(owner.token, 'generate-product', product(owner.storeId));
      const fr = await call(owner.token, 'generate-product', { ...product(owner.storeId), language: 'fr' });
      const again = await call(owner.token, 'generate-product', { ...product(owner.storeId), language: 'fr' });
      expect(fr.status).toBe(200);
      expect(fr.body.product.name).not.toBe(en.body.product.name);
      expect(fr.body.product.name_en).toBe(en.body.product.name_en);
      expect({ ...again.body.product }).toEqual({ ...fr.body.product });
    });

    it('reads JPEG, and WebP served as octet-stream', async () => {
      for (const path of ['/photo.jpg', '/photo.bin']) {
        const result = await call(owner.token, 'generate-product', {
          ...product(owner.storeId),
          image_url: `${images.url}${path}`,
        });
        expect(result.status, path).toBe(200);
      }
    });

    it.each([
      ['/missing.png', 'HTTP 404'],
      ['/broken.png', 'HTTP 500'],
      ['/page.html', 'not an image'],
      ['/liar.png', 'not an image'],
      ['/huge.png', 'larger than 10 MiB'],
      ['/moved.png', 'redirect'],
    ])('an unusable image (%s) → 422 naming why, nothing charged', async (path, reason) => {
      const before = await balanceOf(owner.storeId);
      const result = await call(owner.token, 'generate-product', {
        ...product(owner.storeId),
        image_url: `${images.url}${path}`,
      });
      expect(result.status).toBe(422);
      expect(result.body.error.code).toBe('UNPROCESSABLE');
      expect(result.body.error.message).toContain(reason);
      expect(await balanceOf(owner.storeId)).toBe(before);
    });

    it('validates the body: URL, store id, language', async () => {
      const bad = await call(owner.token, 'generate-product', {
        image_url: 'ftp://x/y.png',
        store_id: owner.storeId,
        language: 'english!',
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['image_url', 'language']);
      expect(
        (await call(owner.token, 'generate-product', { ...product(owner.storeId), store_id: 'nope' })).status,
      ).toBe(400);
      expect((await call(owner.token, 'generate-product', { ...product(owner.storeId), extra: 1 })).status).toBe(400);
    });
  });

  describe('generate-blog-cover', () => {
    it('stores a 1200×630 PNG in the requested colours, served publicly by the app', async () => {
      const result = await call(owner.token, 'generate-blog-cover', {
        title: 'Ten summer looks for the beach',
        style: 'minimal',
        colors: ['#0ea5e9', '#f97316'],
        store_id: owner.storeId,
      });
      expect(result.status).toBe(200);
      expect(result.body.ai_credits_used).toBe(3);
      expect(result.body.image_url).toMatch(
        new RegExp(`^${api.settings.get(httpConfig).baseUrl}/media/covers/[0-9a-f-]{36}\\.png$`),
      );
      const path = new URL(result.body.image_url).pathname;
      const served = await fetch(`${api.url}${path}`);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe('image/png');
      expect(served.headers.get('cache-control')).toContain('immutable');
      const png = Buffer.from(await served.arrayBuffer());
      expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      const meta = await sharp(png).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['png', 1200, 630]);
      // The requested colours make up the picture.
      const { dominant } = await sharp(png).stats();
      const near = (hex: string) => {
        const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
        return Math.abs(r - dominant.r) + Math.abs(g - dominant.g) + Math.abs(b - dominant.b) < 120;
      };
      expect(near('#0ea5e9') || near('#f97316')).toBe(true);
      expect((await fetch(`${api.url}/media/covers/${randomUUID()}.png`)).status).toBe(404);
      expect((await fetch(`${api.url}/media/covers/not-an-id`)).status).toBe(404);
    });

    it('store_id may be left out by a caller with one store; one with several must give it', async () => {
      const single = await merchantWithStore(api, 'Single');
      const body = { title: 'Hello', style: 'bold', colors: ['#000'] };
      const result = await call(single.token, 'generate-blog-cover', body);
      expect(result.status).toBe(200);
      expect(await balanceOf(single.storeId)).toBe(47);
      await api.request('POST', '/functions/v1/stores', { token: single.token, body: { name: 'Second' } });
      const ambiguous = await call(single.token, 'generate-blog-cover', body);
      expect(ambiguous.status).toBe(400);
      expect(ambiguous.body.error.details[0].field).toBe('store_id');
    });

    it('validates colours (1–5 hex codes) and style (1–50 characters)', async () => {
      const base = { title: 'T', style: 'minimal', colors: ['#fff'], store_id: owner.storeId };
      for (const change of [
        { colors: [] },
        { colors: ['red'] },
        { colors: ['#12345'] },
        { colors: Array(6).fill('#fff') },
        { style: '' },
        { style: 'x'.repeat(51) },
      ]) {
        const result = await call(owner.token, 'generate-blog-cover', { ...base, ...change });
        expect(result.status, JSON.stringify(change)).toBe(400);
      }
    });
  });

  describe('generate-blog-autopilot', () => {
    it('writes sanitised HTML, longer for longer lengths; ai_credits_used at the top level', async () => {
      const words = async (length: string) => {
        const result = await call(
          owner.token,
          'generate-blog-autopilot',
          article(owner.storeId, { length, topic: 'Linen <script>alert(1)</script> care' }),
        );
        expect(result.status).toBe(200);
        expect(result.body.ai_credits_used).toBe(5);
        const a = result.body.article;
        expect(Object.keys(a).sort()).toEqual(['content', 'excerpt', 'seo_description', 'seo_title', 'title']);
        expect(a.content).toContain('<h2');
        expect(a.content).not.toMatch(/<script|onerror|onload|javascript:/i);
        return a.content
          .replace(/<[^>]+>/g, ' ')
          .split(/\s+/)
          .filter(Boolean).length;
      };
      const [short, medium, long] = [await words('short'), await words('medium'), await words('long')];
      expect(short).toBeLessThan(medium);
      expect(medium).toBeLessThan(long);
    });

    it('answers title, excerpt and SEO fields as plain text whatever encoding the topic hides markup in', async () => {
      // A store of its own: these calls count against no other test's hourly limit.
      const { token, storeId } = await merchantWithStore(api, 'Markup topics');
      const topics = [
        '&lt;script&gt;alert(1)&lt;/script&gt;',
        '&amp;lt;img src=x onerror=alert(1)&amp;gt; linen',
        '&#x3C;svg onload=alert(1)&#62; &#60;b&#62;linen&#60;/b&#62;',
      ];
      for (const topic of topics) {
        const result = await call(token, 'generate-blog-autopilot', article(storeId, { topic }));
        expect(result.status, topic).toBe(200);
        const { title, excerpt, seo_title, seo_description, content } = result.body.article;
        for (const [field, value] of Object.entries({ title, excerpt, seo_title, seo_description })) {
          expect(value, `${field} of ${topic}`).toEqual(expect.any(String));
          expect(value, `${field} of ${topic}`).not.toMatch(/<[a-z]/i);
          expect(value, `${field} of ${topic}`).not.toMatch(/&lt;|&#0*60;|&#x0*3c;/i);
        }
        expect(content).not.toMatch(/<(?:script|img|svg)/i);
      }
    });

    it('refuses an unknown length', async () => {
      const result = await call(owner.token, 'generate-blog-autopilot', article(owner.storeId, { length: 'epic' }));
      expect(result.status).toBe(400);
      expect(result.body.error.details[0].field).toBe('length');
    });
  });

  describe('research-social-context', () => {
    it('answers insights with #hashtags and a recommendation naming each platform; store_id optional', async () => {
      const result = await call(owner.token, 'research-social-context', {
        query: 'sustainable sneakers',
        platforms: ['instagram', 'tiktok'],
      });
      expect(result.status).toBe(200);
      expect(result.body.ai_credits_used).toBe(2);
      const insights = result.body.insights;
      expect(Object.keys(insights).sort()).toEqual([
        'audience_sentiment',
        'popular_hashtags',
        'recommendations',
        'trending_topics',
      ]);
      expect(insights.popular_hashtags.length).toBeGreaterThan(0);
      for (const tag of insights.popular_hashtags) expect(tag).toMatch(/^#\S+$/);
      expect(typeof insights.audience_sentiment).toBe('string');
      const recommendations = insights.recommendations.join(' ').toLowerCase();
      expect(recommendations).toContain('instagram');
      expect(recommendations).toContain('tiktok');
    });

    it('refuses unknown or repeated platforms', async () => {
      for (const platforms of [[], ['myspace'], ['x', 'x']]) {
        const result = await call(owner.token, 'research-social-context', {
          query: 'q',
          platforms,
          store_id: owner.storeId,
        });
        expect(result.status, JSON.stringify(platforms)).toBe(400);
      }
    });
  });

  describe('social-generate-content', () => {
    let productId: string;
    beforeAll(async () => {
      await api.request('PATCH', `/functions/v1/stores/${owner.storeId}`, {
        token: owner.token,
        body: { timezone: 'Asia/Tokyo' },
      });
      const made = await api.request('POST', `/functions/v1/stores/${owner.storeId}/products`, {
        token: owner.token,
        body: {
          name: 'Midnight blue ceramic mug with an extra long name that goes on and on',
          description: 'A glazed ceramic mug. '.repeat(30),
          price: 24.9,
          category: 'Kitchen',
          seo_keywords: ['mug', 'ceramic', 'coffee', 'blue', 'gift'],
          status: 'active',
        },
      });
      productId = made.body.product.id;
    });

    it.each(['x', 'instagram', 'threads', 'facebook', 'tiktok', 'youtube'])(
      '%s: text and hashtags fit the platform, hashtags begin with #, ' +
        'suggested_time is a future slot on the hour in the store zone',
      async (platform) => {
        const started = Date.now();
        const result = await call(owner.token, 'social-generate-content', {
          product_id: productId,
          platform,
          tone: 'playful',
          language: 'en',
        });
        expect(result.status).toBe(200);
        expect(result.body.ai_credits_used).toBe(1);
        const { text, hashtags, suggested_time } = result.body.content;
        expect(text.length).toBeGreaterThan(0);
        for (const tag of hashtags) expect(tag).toMatch(/^#\S+$/);
        const full = hashtags.length ? `${text}\n\n${hashtags.join(' ')}` : text;
        const limits: Record<string, number> = {
          x: 280,
          threads: 500,
          instagram: 2200,
          facebook: 63206,
          tiktok: 2200,
          youtube: 5000,
        };
        const length =
          platform === 'x' ? twitterText.parseTweet(full).weightedLength : [...full.normalize('NFC')].length;
        expect(length).toBeLessThanOrEqual(limits[platform]);
        const at = new Date(suggested_time);
        expect(suggested_time).toBe(at.toISOString());
        expect(at.getTime()).toBeGreaterThan(started + 29 * 60_000);
        expect(at.getTime()).toBeLessThan(started + 49 * 3600_000);
        // Tokyo is UTC+9 with no DST: a slot on the hour there is on the hour in UTC.
        expect(at.getUTCMinutes()).toBe(0);
      },
    );

    it('answers the post text and hashtags as plain text when the product name hides markup', async () => {
      const made = await api.request('POST', `/functions/v1/stores/${owner.storeId}/products`, {
        token: owner.token,
        body: {
          name: '&lt;img src=x onerror=alert(1)&gt; Linen &amp;lt;b&amp;gt;shirt',
          description: 'A shirt. &lt;script&gt;alert(1)&lt;/script&gt;',
          price: 30,
          category: '&lt;i&gt;Shirts',
          seo_keywords: ['linen', '&lt;b&gt;summer', 'shirt'],
          status: 'active',
        },
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      const result = await call(owner.token, 'social-generate-content', {
        product_id: made.body.product.id,
        platform: 'instagram',
        tone: 'playful',
        language: 'en',
      });
      expect(result.status).toBe(200);
      const { text, hashtags } = result.body.content;
      for (const value of [text, ...hashtags]) {
        expect(value).not.toMatch(/<[a-z]/i);
        expect(value).not.toMatch(/&lt;|&#0*60;|&#x0*3c;/i);
      }
      expect(text).toContain('Linen');
    });

    it('refuses an unknown platform and a product id that is not a UUID', async () => {
      expect(
        (
          await call(owner.token, 'social-generate-content', {
            product_id: productId,
            platform: 'myspace',
            tone: 't',
            language: 'en',
          })
        ).status,
      ).toBe(400);
      expect(
        (
          await call(owner.token, 'social-generate-content', {
            product_id: 'x',
            platform: 'x',
            tone: 't',
            language: 'en',
          })
        ).status,
      ).toBe(400);
    });
  });

  describe('a language the provider does not write', () => {
    const LOCAL_WRITES =
      'it writes English (en), French (fr), Spanish (es), German (de) and Portuguese (pt), in any regional variant';
    const ledgerRows = async (storeId: string) =>
      (
        (await db.query('SELECT count(*)::int AS n FROM credit_ledger WHERE store_id = $1', [storeId])) as {
          n: number;
        }[]
      )[0].n;

    it.each([
      ['generate-product', 'it', 'Italian (it)'],
      ['generate-blog-autopilot', 'ar', 'Arabic (ar)'],
      ['social-generate-content', 'ja-JP', 'Japanese (Japan) (ja-JP)'],
      ['generate-blog-autopilot', 'xx', '"xx"'],
    ])(
      '%s in %s → 422 naming the languages it has; nothing charged, nothing in the ledger',
      async (fn, language, named) => {
        const { token, storeId } = await merchantWithStore(api, `Languages ${fn} ${language}`);
        const made = await api.request('POST', `/functions/v1/stores/${storeId}/products`, {
          token,
          body: { name: 'Linen shirt', price: 30, status: 'active' },
        });
        const bodies: Record<string, Record<string, unknown>> = {
          'generate-product': { ...product(storeId), language },
          'generate-blog-autopilot': article(storeId, { language }),
          'social-generate-content': {
            product_id: made.body.product.id,
            platform: 'instagram',
            tone: 'calm',
            language,
          },
        };
        const before = {
          balance: await balanceOf(storeId),
          rows: await ledgerRows(storeId),
          fetched: images.hits.get('/photo.png') ?? 0,
        };
        const refused = await call(token, fn, bodies[fn]);
        expect(refused.status).toBe(422);
        const message = `The local AI provider cannot write ${named}; ${LOCAL_WRITES}`;
        expect(refused.body).toEqual({
          success: false,
          error: { code: 'UNPROCESSABLE', message, details: [{ field: 'language', message }] },
        });
        expect(await balanceOf(storeId)).toBe(before.balance);
        expect(await ledgerRows(storeId)).toBe(before.rows);
        // Refused before anything else: the photo was not even fetched.
        expect(images.hits.get('/photo.png') ?? 0).toBe(before.fetched);
        const usage = (await credits(token, storeId)).body.usage[fn];
        expect(usage.used_last_hour).toBe(0);
      },
    );

    it('a regional variant of a language it writes is served (pt-BR, fr-CA), and charged', async () => {
      const { token, storeId } = await merchantWithStore(api, 'Regional languages');
      const pt = await call(token, 'generate-blog-autopilot', article(storeId, { language: 'pt-BR' }));
      expect(pt.status).toBe(200);
      const fr = await call(token, 'generate-product', { ...product(storeId), language: 'fr-CA' });
      expect(fr.status).toBe(200);
      expect(await balanceOf(storeId)).toBe(50 - 5 - 2);
    });

    it('a language tag that is not BCP 47 is still a 400 of the body, not a 422', async () => {
      const result = await call(
        owner.token,
        'generate-blog-autopilot',
        article(owner.storeId, { language: 'italiano!' }),
      );
      expect(result.status).toBe(400);
      expect(result.body.error.details).toEqual([
        { field: 'language', message: 'language must be a BCP 47 language tag such as en, fr or pt-BR' },
      ]);
    });
  });

  describe('Idempotency-Key', () => {
    it('a repeated key answers the first response again and charges once', async () => {
      const { token, storeId } = await merchantWithStore(api, 'Idempotent');
      const key = `key-${randomUUID()}`;
      const first = await call(
        token,
        'generate-blog-cover',
        { title: 'Once', style: 'bold', colors: ['#123456'], store_id: storeId },
        { 'idempotency-key': key },
      );
      const second = await call(
        token,
        'generate-blog-cover',
        { title: 'Once', style: 'bold', colors: ['#123456'], store_id: storeId },
        { 'idempotency-key': key },
      );
      expect(first.status).toBe(200);
      expect(second.status).toBe(200);
      expect(second.body).toEqual(first.body);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      expect(await balanceOf(storeId)).toBe(47);
      const covers = (await db.query('SELECT count(*)::int AS n FROM ai_images WHERE store_id = $1', [storeId])) as {
        n: number;
      }[];
      expect(covers[0].n).toBe(1);

      const other = await call(
        token,
        'generate-blog-cover',
        { title: 'Different', style: 'bold', colors: ['#123456'], store_id: storeId },
        { 'idempotency-key': key },
      );
      expect(other.status).toBe(422);
      expect(other.body.error.message).toContain('Idempotency-Key');
      // Keys are per user: another user's same key is a new request.
      const member = await call(tokens.aiMember, 'generate-blog-autopilot', article(owner.storeId), {
        'idempotency-key': key,
      });
      expect(member.status).toBe(200);
      expect(member.headers.get('idempotent-replayed')).toBeNull();
      expect(await balanceOf(storeId)).toBe(47);
    });

    it('a failed request keeps nothing: the same key works once the store can pay', async () => {
      const { token, storeId } = await merchantWithStore(api, 'Retry');
      await call(token, 'generate-blog-autopilot', article(storeId));
      for (let i = 0; i < 8; i++) await call(token, 'generate-blog-autopilot', article(storeId));
      expect(await balanceOf(storeId)).toBe(5);
      await call(token, 'generate-blog-autopilot', article(storeId));
      const key = randomUUID();
      const poor = await call(token, 'generate-blog-autopilot', article(storeId), { 'idempotency-key': key });
      expect(poor.status).toBe(402);
      expect(poor.body.error).toMatchObject({ code: 'INSUFFICIENT_CREDITS', details: { required: 5, balance: 0 } });
      await grant(storeId, 5);
      const paid = await call(token, 'generate-blog-autopilot', article(storeId), { 'idempotency-key': key });
      expect(paid.status).toBe(200);
      expect(await balanceOf(storeId)).toBe(0);
    });

    it('a replay answers the same status, headers and body bytes as the first answer', async () => {
      const { token, storeId } = await merchantWithStore(api, 'Exact replay');
      const key = `exact-${randomUUID()}`;
      // The raw answer, not a parsed one: the bytes are what is compared.
      const send = async () => {
        const response = await fetch(`${api.url}/functions/v1/generate-product`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
          body: JSON.stringify(product(storeId)),
        });
        return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
      };
      const first = await send();
      const second = await send();
      expect(first.status).toBe(200);
      // Many keys, nested ones too, in the answer's own order (not sorted, not jsonb's).
      const answer = JSON.parse(first.bytes.toString('utf8'));
      expect(Object.keys(answer.product).length).toBeGreaterThanOrEqual(8);
      expect(second.status).toBe(first.status);
      expect(second.headers.get('content-type')).toBe(first.headers.get('content-type'));
      expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(second.headers.get('content-length')).toBe(first.headers.get('content-length'));
      expect(second.bytes.equals(first.bytes)).toBe(true);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      expect(await balanceOf(storeId)).toBe(48);
    });

    it('the same key while the first request still runs → 409; once it has answered, its answer', async () => {
      const { token, storeId } = await merchantWithStore(api, 'Still running');
      const key = `running-${randomUUID()}`;
      const body = { ...product(storeId), image_url: `${images.url}/held.png` };
      const fetched = images.hits.get('/held.png') ?? 0;
      // The photo server holds the first request's fetch: it is claimed and running until released.
      const first = call(token, 'generate-product', body, { 'idempotency-key': key });
      try {
        await until(() => images.hits.get('/held.png') === fetched + 1, 'the first request to fetch its photo');
        const second = await call(token, 'generate-product', body, { 'idempotency-key': key });
        expect(second.status).toBe(409);
        expect(second.body.error).toMatchObject({
          code: 'CONFLICT',
          message: expect.stringContaining('still being processed'),
        });
      } finally {
        // Whatever happened above, the first request ends here: it must not outlive the test.
        images.release();
        await first;
      }
      const answered = await first;
      expect(answered.status).toBe(200);
      const third = await call(token, 'generate-product', body, { 'idempotency-key': key });
      expect(third.status).toBe(200);
      expect(third.headers.get('idempotent-replayed')).toBe('true');
      expect(third.body).toEqual(answered.body);
      expect(images.hits.get('/held.png')).toBe(fetched + 1);
      expect(await balanceOf(storeId)).toBe(48);
    });

    it('the key reused for another route, even with the same body → 422, and that route is not run', async () => {
      const { token, storeId } = await merchantWithStore(api, 'Other route');
      const key = `route-${randomUUID()}`;
      const body = { title: 'T', style: 'bold', colors: ['#123456'], store_id: storeId };
      const cover = await call(token, 'generate-blog-cover', body, { 'idempotency-key': key });
      expect(cover.status).toBe(200);
      const other = await call(token, 'generate-blog-autopilot', body, { 'idempotency-key': key });
      expect(other.status).toBe(422);
      expect(other.body.error).toMatchObject({
        code: 'UNPROCESSABLE',
        message: expect.stringContaining('Idempotency-Key'),
      });
      expect(await balanceOf(storeId)).toBe(47);
    });

    it(
      'a key is kept 24 hours: a minute before, it still ' + 'refuses another body; after, it is a new request',
      async () => {
        const { session, token, storeId } = await merchantWithStore(api, 'Day old key');
        const key = `day-${randomUUID()}`;
        const cover = (title: string) =>
          call(
            token,
            'generate-blog-cover',
            { title, style: 'bold', colors: ['#123456'], store_id: storeId },
            { 'idempotency-key': key },
          );
        expect((await cover('First')).status).toBe(200);
        // The key's age is its row's creation time: set back as if the first request was that long ago.
        const age = (interval: string) =>
          db.query(
            `UPDATE idempotency_keys SET created_at = clock_timestamp() - $3::interval WHERE user_id = $1 AND key = $2`,
            [session.user.id, key, interval],
          );
        await age('23 hours 59 minutes');
        expect((await cover('Second')).status).toBe(422);
        const replayed = await cover('First');
        expect(replayed.headers.get('idempotent-replayed')).toBe('true');
        expect(await balanceOf(storeId)).toBe(47);

        await age('24 hours 1 minute');
        const fresh = await cover('Second');
        expect(fresh.status).toBe(200);
        expect(fresh.headers.get('idempotent-replayed')).toBeNull();
        expect(await balanceOf(storeId)).toBe(44);
        // And the new answer is the one kept now.
        const again = await cover('Second');
        expect(again.headers.get('idempotent-replayed')).toBe('true');
        expect(again.body).toEqual(fresh.body);
      },
    );

    it('keys older than 24 hours are purged with their answers; younger ones stay', async () => {
      const userId = randomUUID();
      const row = (key: string, age: string) =>
        db.query(
          `INSERT INTO idempotency_keys (caller, user_id, key, route, fingerprint, state,
                                         response_status, response_headers, response_body, created_at)
           VALUES ($4, $1, $2, 'generate-blog-cover', 'f', 'done', 200, '{}', '{"cover":1}',
                   clock_timestamp() - $3::interval)`,
          [userId, key, age, `user:${userId}`],
        );
      await row('expired', '25 hours');
      await row('just-expired', '24 hours 1 minute');
      await row('young', '23 hours');
      expect(await api.app.get(IdempotencyStore).purgeExpired()).toBeGreaterThanOrEqual(2);
      const left = (await db.query('SELECT key FROM idempotency_keys WHERE user_id = $1 ORDER BY key', [userId])) as {
        key: string;
      }[];
      expect(left.map((r) => r.key)).toEqual(['young']);
    });

    it('refuses a key longer than 255 characters', async () => {
      const result = await call(owner.token, 'generate-blog-autopilot', article(owner.storeId), {
        'idempotency-key': 'k'.repeat(256),
      });
      expect(result.status).toBe(400);
      expect(result.body.error.details[0].field).toBe('Idempotency-Key');
    });
  });

  describe('the hourly maximum on the charging path', () => {
    const AUTOPILOT = 'generate-blog-autopilot';
    /**
     * Autopilot charges written into the store's ledger `minutesAgo` each (with their refunds when `refunded`): a past
     * hour arranged in SQL.
     */
    const pastCharges = (storeId: string, minutesAgo: number[], refunded = false) =>
      db.query(
        `WITH charges AS (
           INSERT INTO credit_ledger (store_id, kind, amount, function, reference, created_at)
           SELECT $1, 'charge', -5, $2, 'arranged', clock_timestamp() - make_interval(mins => m) FROM unnest($3::int[])
             AS m
           RETURNING id, created_at)
         INSERT INTO credit_ledger (store_id, kind, amount, function, refund_of, created_at)
         SELECT $1, 'refund', 5, $2, id, created_at FROM charges WHERE $4`,
        [storeId, AUTOPILOT, minutesAgo, refunded],
      );

    it('over the maximum, Retry-After counts from the oldest call in the window', async () => {
      const { token, storeId } = await merchantWithStore(api, 'Window');
      // 20 calls (the maximum): the oldest 50 minutes ago, leaving the window in 10 minutes; the rest 5 minutes ago.
      await pastCharges(storeId, [50, ...Array<number>(19).fill(5)]);
      const limited = await call(token, AUTOPILOT, article(storeId));
      expect(limited.status).toBe(429);
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(590);
      expect(retryAfter).toBeLessThanOrEqual(600);
      expect(limited.body.error.details).toEqual({ limit: 20, window_seconds: 3600, retry_after_seconds: retryAfter });
      expect(await balanceOf(storeId)).toBe(50);
    });

    it('refunded calls do not count towards the maximum', async () => {
      const { token, storeId } = await merchantWithStore(api, 'Refunded');
      // 19 calls that count, and 10 older ones that were refunded.
      await pastCharges(storeId, Array<number>(19).fill(10));
      await pastCharges(storeId, Array<number>(10).fill(55), true);
      const twentieth = await call(token, AUTOPILOT, article(storeId));
      expect(twentieth.status).toBe(200);
      const over = await call(token, AUTOPILOT, article(storeId));
      expect(over.status).toBe(429);
      // The oldest counted call is 10 minutes old: the refunded ones, older, do not set the wait either.
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(2990);
      expect(Number(over.headers.get('retry-after'))).toBeLessThanOrEqual(3000);
      expect(await balanceOf(storeId)).toBe(45);
    });
  });

  describe('charging under concurrency', () => {
    it(
      '40 parallel autopilot calls with 52 credits: exactly ' + '10 succeed, 30 get 402, balance 2, ledger consistent',
      async () => {
        const { token, storeId } = await merchantWithStore(api, 'Crowded');
        await grant(storeId, 2);
        const results = await Promise.all(
          Array.from({ length: 40 }, () => call(token, 'generate-blog-autopilot', article(storeId))),
        );
        const statuses = results.map((r) => r.status);
        expect(statuses.filter((s) => s === 200)).toHaveLength(10);
        expect(statuses.filter((s) => s === 402)).toHaveLength(30);
        expect(await balanceOf(storeId)).toBe(2);
        expect(await ledgerSum(storeId)).toBe(2);
        const charges = (await db.query(
          `SELECT count(*)::int AS n FROM credit_ledger WHERE store_id = $1 AND kind = 'charge'`,
          [storeId],
        )) as { n: number }[];
        expect(charges[0].n).toBe(10);
        expect((await credits(token, storeId)).body.usage['generate-blog-autopilot'].used_last_hour).toBe(10);
      },
    );

    it('25 parallel autopilot calls with ample credits: exactly 20 succeed, 5 get 429 with Retry-After', async () => {
      const { token, storeId } = await merchantWithStore(api, 'Busy');
      await grant(storeId, 1000);
      const results = await Promise.all(
        Array.from({ length: 25 }, () => call(token, 'generate-blog-autopilot', article(storeId))),
      );
      expect(results.filter((r) => r.status === 200)).toHaveLength(20);
      const limited = results.filter((r) => r.status === 429);
      expect(limited).toHaveLength(5);
      for (const r of limited) {
        const retryAfter = Number(r.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThan(3500);
        expect(retryAfter).toBeLessThanOrEqual(3600);
        expect(r.body.error).toMatchObject({
          code: 'RATE_LIMITED',
          details: { limit: 20, window_seconds: 3600, retry_after_seconds: retryAfter },
        });
      }
      expect(await balanceOf(storeId)).toBe(1050 - 100);
      expect(await ledgerSum(storeId)).toBe(950);
    });
  });
});
