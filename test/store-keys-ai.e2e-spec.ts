import type { DataSource } from 'typeorm';
import { ImageServer, twoColourPhoto } from './fakes/image-server.js';
import { merchantWithStore, startApp, type TestApp } from './support/app.js';
import { SYSTEM_DATA_SOURCE } from './support/database.js';
import { connectSandbox } from './support/social.js';

/**
 * Store keys on the AI functions and on publishing, over HTTP on the real app (the offline `local` AI
 * provider, SOCIAL_MODE=sandbox), with two stores: a key holding `ai` is charged to its own store with
 * the hourly maximum it shares with the store's people, the ledger names the key; a key holding
 * `social` publishes and cancels for its store and is recorded as the post's author; connecting stays a
 * person's act.
 */
describe('store keys: AI functions and publishing', () => {
  let api: TestApp;
  let images: ImageServer;
  let a: { token: string; storeId: string };
  let b: { token: string; storeId: string };
  let productA: string;
  const db = () => api.app.get<DataSource>(SYSTEM_DATA_SOURCE);

  const call = (token: string, path: string, body: unknown, headers?: Record<string, string>) =>
    api.request('POST', `/functions/v1/${path}`, { token, body, headers });
  const makeKey = async (owner: { token: string; storeId: string }, permissions: string[]) => {
    const made = await api.request('POST', `/functions/v1/stores/${owner.storeId}/api-keys`, {
      token: owner.token,
      body: { name: 'Server', permissions },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    return { id: made.body.api_key.id as string, secret: made.body.secret as string };
  };
  const balanceOf = async (storeId: string) => {
    const sql = 'SELECT balance FROM credit_accounts WHERE store_id = $1';
    const rows: { balance: number }[] = await db().query(sql, [storeId]);
    return rows[0].balance;
  };
  const charges = async (storeId: string) =>
    (await db().query(
      `SELECT function, amount, created_by, api_key_id FROM credit_ledger
        WHERE store_id = $1 AND kind = 'charge' ORDER BY created_at`,
      [storeId],
    )) as { function: string; amount: number; created_by: string | null; api_key_id: string | null }[];
  const ARTICLE = { topic: 'Linen', tone: 'friendly', length: 'short', language: 'en' };
  const article = (storeId?: string) => ({ ...ARTICLE, store_id: storeId });
  const COVER = { title: 'x', style: 'y', colors: ['#fff'] };

  beforeAll(async () => {
    images = await new ImageServer({
      '/photo.png': { headers: { 'content-type': 'image/png' }, body: await twoColourPhoto('png') },
    }).start();
    api = await startApp({
      SOCIAL_MODE: 'sandbox',
      AI_HOURLY_LIMITS: 'research-social-context:3',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      // Its own Bull queues: a worker of another file's app must not take this file's scheduled posts.
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}store-keys-ai:`,
    });
    a = await merchantWithStore(api, 'Key AI store A');
    b = await merchantWithStore(api, 'Key AI store B');
    const made = await api.request('POST', `/functions/v1/stores/${a.storeId}/products`, {
      token: a.token,
      body: { name: 'Linen shirt', price: 40, status: 'active' },
    });
    productA = made.body.product.id;
  });
  afterAll(async () => {
    await api?.close();
    await images?.stop();
  });

  it('a key holding ai calls each AI function, charged to its store; the ledger names the key', async () => {
    const key = await makeKey(a, ['ai']);
    const before = await balanceOf(a.storeId);
    const calls: [string, Record<string, unknown>, number][] = [
      ['generate-product', { image_url: `${images.url}/photo.png`, store_id: a.storeId, language: 'en' }, 2],
      // No store_id: the caller's only store, which for a key is its store.
      ['generate-blog-cover', { title: 'Summer', style: 'minimal', colors: ['#0ea5e9'] }, 3],
      ['generate-blog-autopilot', article(a.storeId), 5],
      ['research-social-context', { query: 'linen', platforms: ['instagram'] }, 2],
      ['social-generate-content', { product_id: productA, platform: 'x', tone: 'fun', language: 'en' }, 1],
    ];
    for (const [fn, body, credits] of calls) {
      const result = await call(key.secret, fn, body);
      expect(result.status, `${fn} ${JSON.stringify(result.body)}`).toBe(200);
      expect((result.body.product ?? result.body).ai_credits_used).toBe(credits);
    }
    expect(await balanceOf(a.storeId)).toBe(before - 13);
    expect(await balanceOf(b.storeId)).toBe(50);
    const ledger = await charges(a.storeId);
    expect(ledger.map((row) => row.function)).toEqual(calls.map(([fn]) => fn));
    for (const row of ledger) expect(row).toMatchObject({ created_by: null, api_key_id: key.id });
    const [cover] = await db().query(`SELECT store_id FROM ai_images ORDER BY created_at DESC LIMIT 1`);
    expect(cover.store_id).toBe(a.storeId);
    // The owner's charge names the owner, not a key.
    expect((await call(a.token, 'generate-blog-autopilot', article(a.storeId))).status).toBe(200);
    expect((await charges(a.storeId)).at(-1)).toMatchObject({ api_key_id: null, created_by: expect.any(String) });
  });

  it('a key without ai: 403; a key of another store: 404 on store A and its product; nothing charged', async () => {
    const catalog = await makeKey(a, ['catalog', 'social', 'billing']);
    const keyB = await makeKey(b, ['ai']);
    const [balanceA, balanceB] = [await balanceOf(a.storeId), await balanceOf(b.storeId)];
    const refused = await call(catalog.secret, 'generate-blog-autopilot', article(a.storeId));
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe('This needs the "ai" permission on the store');
    expect((await call(catalog.secret, 'generate-blog-cover', COVER)).status).toBe(403);
    expect((await call(keyB.secret, 'generate-blog-autopilot', article(a.storeId))).status).toBe(404);
    const foreign = await call(keyB.secret, 'social-generate-content', {
      product_id: productA,
      platform: 'x',
      tone: 'fun',
      language: 'en',
    });
    expect(foreign.status).toBe(404);
    expect([await balanceOf(a.storeId), await balanceOf(b.storeId)]).toEqual([balanceA, balanceB]);
    // Store B's key without store_id: its own store, charged there.
    expect((await call(keyB.secret, 'research-social-context', { query: 'mugs', platforms: ['x'] })).status).toBe(200);
    expect(await balanceOf(b.storeId)).toBe(balanceB - 2);
    expect(await balanceOf(a.storeId)).toBe(balanceA);
  });

  it("the hourly maximum counts a key's calls with the owner's, per store and function", async () => {
    const c = await merchantWithStore(api, 'Key AI store C');
    const d = await merchantWithStore(api, 'Key AI store D');
    const key = await makeKey(c, ['ai']);
    const research = { query: 'linen', platforms: ['x'] };
    expect((await call(c.token, 'research-social-context', { ...research, store_id: c.storeId })).status).toBe(200);
    expect((await call(key.secret, 'research-social-context', research)).status).toBe(200);
    expect((await call(c.token, 'research-social-context', { ...research, store_id: c.storeId })).status).toBe(200);
    const limited = await call(key.secret, 'research-social-context', research);
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ code: 'RATE_LIMITED', details: { limit: 3 } });
    expect((await call(c.token, 'research-social-context', { ...research, store_id: c.storeId })).status).toBe(429);
    expect(await balanceOf(c.storeId)).toBe(50 - 6);
    // Another function of the store, and the same function of another store, are not held back.
    expect((await call(key.secret, 'generate-blog-cover', COVER)).status).toBe(200);
    expect((await call(d.token, 'research-social-context', { ...research, store_id: d.storeId })).status).toBe(200);
  });

  it("an Idempotency-Key retry of a key's AI call replays the answer and charges once", async () => {
    const key = await makeKey(a, ['ai']);
    const before = await balanceOf(a.storeId);
    const headers = { 'idempotency-key': 'key-autopilot-1' };
    const first = await call(key.secret, 'generate-blog-autopilot', article(a.storeId), headers);
    expect(first.status).toBe(200);
    const again = await call(key.secret, 'generate-blog-autopilot', article(a.storeId), headers);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await balanceOf(a.storeId)).toBe(before - 5);
    expect((await charges(a.storeId)).filter((row) => row.api_key_id === key.id)).toHaveLength(1);
  });

  describe('publishing', () => {
    beforeAll(async () => {
      await connectSandbox(api, a.token, a.storeId, 'x');
      await connectSandbox(api, b.token, b.storeId, 'x');
    });
    const post = (storeId: string, extra: Record<string, unknown> = {}) => ({
      store_id: storeId,
      platforms: ['x'],
      content: { text: 'New linen shirts' },
      ...extra,
    });

    it('a key holding social publishes now for its store; the post records the key as its author', async () => {
      const key = await makeKey(a, ['social']);
      const result = await call(key.secret, 'social-publish', post(a.storeId));
      expect(result.status, JSON.stringify(result.body)).toBe(200);
      expect(result.body.success).toBe(true);
      expect(result.body.results[0]).toMatchObject({ platform: 'x', status: 'published' });
      const sql = `SELECT created_by, api_key_id, status FROM social_posts WHERE api_key_id = $1`;
      const [row] = await db().query(sql, [key.id]);
      expect(row).toEqual({ created_by: null, api_key_id: key.id, status: 'published' });
      const path = `/functions/v1/social-posts?store_id=${a.storeId}`;
      const listed = await api.request('GET', path, { token: key.secret });
      expect(listed.status).toBe(200);
      expect(listed.body.data.length).toBeGreaterThanOrEqual(1);
    });

    it('a key schedules a post and cancels it', async () => {
      const key = await makeKey(a, ['social']);
      const at = new Date(Date.now() + 3_600_000).toISOString();
      const scheduled = await call(key.secret, 'social-publish', post(a.storeId, { schedule_at: at }));
      expect(scheduled.status).toBe(200);
      const postId = scheduled.body.results[0].post_id as string;
      expect(scheduled.body.results[0].status).toBe('scheduled');
      const cancelled = await api.request('DELETE', `/functions/v1/social-publish/${postId}`, { token: key.secret });
      expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
      const [row] = await db().query(`SELECT status, api_key_id FROM social_posts WHERE id = $1`, [postId]);
      expect(row).toEqual({ status: 'cancelled', api_key_id: key.id });
    });

    it("refuses a key without social (403), another store's key (404), and connecting for any key (403)", async () => {
      const ai = await makeKey(a, ['ai']);
      const social = await makeKey(a, ['social']);
      const keyB = await makeKey(b, ['social']);
      const count = async () => {
        const sql = 'SELECT count(*)::int AS n FROM social_posts WHERE store_id = ANY ($1)';
        const rows: { n: number }[] = await db().query(sql, [[a.storeId, b.storeId]]);
        return rows[0].n;
      };
      const before = await count();
      expect((await call(ai.secret, 'social-publish', post(a.storeId))).status).toBe(403);
      expect((await call(keyB.secret, 'social-publish', post(a.storeId))).status).toBe(404);
      expect(await count()).toBe(before);
      const at = new Date(Date.now() + 3_600_000).toISOString();
      const byOwner = await call(a.token, 'social-publish', post(a.storeId, { schedule_at: at }));
      const postId = byOwner.body.results[0].post_id as string;
      const cancel = await api.request('DELETE', `/functions/v1/social-publish/${postId}`, { token: keyB.secret });
      expect(cancel.status).toBe(404);
      expect((await db().query(`SELECT status FROM social_posts WHERE id = $1`, [postId]))[0].status).toBe('scheduled');
      const connect = await call(social.secret, 'social-connect', { store_id: a.storeId, platform: 'threads' });
      expect(connect.status).toBe(403);
      expect(connect.body.error.message).toBe('Store keys may not call this route; it needs a signed-in user');
    });
  });
});
