import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import {
  SOCIAL_PLATFORMS,
  SOCIAL_PLATFORMS_REGISTRY,
  type PostContent,
  type SocialPlatformRegistry,
} from '@app/social';
import { ImageServer, twoColourPhoto } from './fakes/image-server.js';
import { FakePlatformServer } from './fakes/platform-server.js';
import { httpConfig } from '@app/core';
import { merchantWithStore, startApp, type TestApp } from './support/app.js';
import { SYSTEM_DATA_SOURCE } from './support/database.js';
import { callBack, eventually, openStart, redirectOf, startConnect } from './support/social.js';

/**
 * Social publishing in SOCIAL_MODE=live against fake platform APIs (real HTTP on 127.0.0.1): what
 * each provider sends (PKCE pair, container-then-publish, auth headers) and how their errors end
 * (expired token → refresh → retry once; 429; 500; a refused post → a failed result).
 */
describe('social publishing (live mode, fake platforms)', () => {
  let fake: FakePlatformServer;
  let media: ImageServer;
  let api: TestApp;
  let db: DataSource;
  let store: { token: string; storeId: string };
  const accounts: Record<string, string> = {};

  const publish = (body: Record<string, unknown>) =>
    api.request('POST', '/functions/v1/social-publish', {
      token: store.token,
      body: { store_id: store.storeId, ...body },
    });
  const image = () => ({ type: 'image' as const, url: `${media.url}/photo.jpg` });
  const video = () => ({ type: 'video' as const, url: `${media.url}/clip.mp4` });
  const requestsTo = (platform: string) => fake.requests.filter((request) => request.platform === platform);

  /**
   * Opens `auth_url` and follows the fake's consent endpoint as a browser would: the cookie the start
   * URL set, the consent URL and where the platform sends the browser back.
   */
  async function consent(platform: string) {
    const { auth_url, state } = await startConnect(api, store.token, store.storeId, platform);
    const opened = await openStart(api, auth_url);
    expect(opened.status).toBe(302);
    expect(opened.cookie).toBeTruthy();
    const authorize = new URL(opened.location!);
    const answer = await fetch(authorize, { redirect: 'manual' });
    expect(answer.status).toBe(302);
    const back = new URL(answer.headers.get('location')!);
    expect(back.searchParams.get('state')).toBe(state);
    return { cookie: opened.cookie, authorize, back };
  }

  /** Connects through the fake's consent endpoint as a browser would; answers the account id. */
  async function connect(platform: string): Promise<string> {
    const { cookie, back } = await consent(platform);
    const { params } = redirectOf(await callBack(api, back.toString(), cookie));
    expect(params).toMatchObject({ platform, status: 'connected' });
    return params.account;
  }

  beforeAll(async () => {
    fake = await FakePlatformServer.start();
    media = await new ImageServer({
      '/photo.jpg': { headers: { 'content-type': 'image/jpeg' }, body: await twoColourPhoto('jpeg') },
      '/clip.mp4': { headers: { 'content-type': 'video/mp4' }, body: Buffer.alloc(4096, 7) },
    }).start();
    api = await startApp({
      ...fake.env(),
      SOCIAL_MODE: 'live',
      SOCIAL_RETRY_DELAYS_MS: '300,300',
      SOCIAL_HTTP_TIMEOUT_MS: '5000',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      // Its own Bull queues: a worker of another file's app (sandbox mode) must not take these posts.
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}social-live:`,
    });
    db = api.app.get<DataSource>(SYSTEM_DATA_SOURCE);
    store = await merchantWithStore(api, 'Live social');
    // Every registered platform, through its fake: a platform registered without a fake of its API fails here.
    for (const platform of SOCIAL_PLATFORMS) accounts[platform] = await connect(platform);
  });
  beforeEach(() => fake.reset());
  afterAll(async () => {
    await api?.close();
    await media?.stop();
    await fake?.close();
  });

  describe('every registered platform, against its fake API', () => {
    /** The barest content the platform's rules accept: text alone, else with an image, else with a video. */
    const acceptedContent = (platform: string, marker: string): PostContent => {
      const rules = api.app
        .get<SocialPlatformRegistry>(SOCIAL_PLATFORMS_REGISTRY)
        .get(platform as (typeof SOCIAL_PLATFORMS)[number])!;
      const text = `${marker}\nFrom the registry check`;
      const candidates: PostContent[] = [
        { text, media: [], link: null },
        { text, media: [image()], link: null },
        { text, media: [video()], link: null },
      ];
      const accepted = candidates.find((content) => rules.validate(content).length === 0);
      if (!accepted) throw new Error(`${platform}: none of the sample posts passes its rules`);
      return accepted;
    };

    it.each(SOCIAL_PLATFORMS)(
      '%s: connected through the fake consent page; a post is published to the fake, once',
      async (platform) => {
        expect(accounts[platform]).toMatch(/^[0-9a-f-]{36}$/);
        const marker = `registry-check-${platform}`;
        const content = acceptedContent(platform, marker);
        const result = await publish({ platforms: [platform], content: { text: content.text, media: content.media } });
        expect(result.status).toBe(200);
        expect(result.body.results).toEqual([
          {
            platform,
            status: 'published',
            post_id: expect.stringMatching(new RegExp(`^${platform}_.+`)),
            url: expect.any(String),
          },
        ]);
        const posted = fake.posts.filter((post) => post.platform === platform);
        expect(posted).toHaveLength(1);
        expect(JSON.stringify(posted[0])).toContain(marker);
        expect(fake.requests.every((request) => request.platform === null || request.platform === platform)).toBe(true);
      },
    );
  });

  describe('connect', () => {
    it(
      'X: auth_url is this service; it sends the browser to the authorize URL ' +
        'with an S256 challenge; the token request sends the matching verifier',
      async () => {
        const { auth_url } = await startConnect(api, store.token, store.storeId, 'x');
        expect(new URL(auth_url).pathname).toBe('/functions/v1/social-connect/start');
        expect(auth_url.startsWith(api.settings.get(httpConfig).baseUrl)).toBe(true);
        const { authorize, back, cookie } = await consent('x');
        expect(`${authorize.origin}${authorize.pathname}`).toBe(`${fake.url}/x/i/oauth2/authorize`);
        expect(authorize.searchParams.get('response_type')).toBe('code');
        expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
        const challenge = authorize.searchParams.get('code_challenge')!;
        expect(authorize.searchParams.get('redirect_uri')).toBe(
          `${api.settings.get(httpConfig).baseUrl}/functions/v1/social-connect/callback`,
        );
        const { params } = redirectOf(await callBack(api, back.toString(), cookie));
        expect(params.status).toBe('connected');
        const token = requestsTo('x').find((request) => request.path.endsWith('/2/oauth2/token'))!;
        expect(token.body.grant_type).toBe('authorization_code');
        const verifier = token.body.code_verifier as string;
        expect(verifier).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
        expect(createHash('sha256').update(verifier).digest('base64url')).toBe(challenge);
        // A confidential client authenticates with HTTP Basic.
        expect(token.headers.authorization).toMatch(/^Basic /);
      },
    );

    it('a platform that refuses the code sends the browser back with status=error', async () => {
      const { back, cookie } = await consent('threads');
      back.searchParams.set('code', 'forged-code');
      const { params } = redirectOf(await callBack(api, back.toString(), cookie));
      expect(params.platform).toBe('threads');
      expect(params.status).toBe('error');
      expect(params.error).toBeTruthy();
    });

    it(
      'a consent given in another browser is refused before the ' +
        'code is exchanged: error=browser_mismatch, nothing attached',
      async () => {
        const { token, storeId } = await merchantWithStore(api, 'Forwarded live');
        const own = { token, storeId };
        const previous = store;
        store = own;
        try {
          const { back, cookie } = await consent('x');
          fake.reset();
          // The consent URL was forwarded: someone else's browser comes back with a valid code but without the cookie.
          const { params } = redirectOf(await callBack(api, back.toString(), null));
          expect(params).toEqual({ platform: 'x', status: 'error', error: 'browser_mismatch' });
          expect(requestsTo('x').filter((request) => request.path.endsWith('/2/oauth2/token'))).toHaveLength(0);
          expect(await db.query('SELECT 1 FROM social_accounts WHERE store_id = $1', [storeId])).toHaveLength(0);
          // The state is spent: the merchant's own browser coming back later cannot use it either.
          expect((await callBack(api, back.toString(), cookie)).status).toBe(400);
        } finally {
          store = previous;
        }
      },
    );
  });

  describe('publish now', () => {
    it('publishes to four platforms with the right calls; the one that fails has its own failed result', async () => {
      fake.enqueue('facebook', 'publish', {
        kind: 'status',
        status: 400,
        body: { error: { message: 'Duplicate status message', code: 506 } },
      });
      const result = await publish({
        platforms: ['x', 'instagram', 'threads', 'facebook'],
        content: { text: 'Fresh mugs, fresh coffee', media: [image()] },
      });
      expect(result.status).toBe(200);
      expect(result.body.success).toBe(false);
      const byPlatform = Object.fromEntries(
        result.body.results.map((item: { platform: string }) => [item.platform, item]),
      );
      for (const platform of ['x', 'instagram', 'threads']) {
        expect(byPlatform[platform].status, platform).toBe('published');
        expect(byPlatform[platform].post_id).toMatch(new RegExp(`^${platform}_.+`));
        expect(byPlatform[platform].url).toMatch(/^https?:\/\//);
      }
      expect(byPlatform.facebook).toMatchObject({ status: 'failed', post_id: null, url: null });
      expect(byPlatform.facebook.error.message).toContain('Duplicate status message');

      // X: the image uploaded first, then the post naming it, with the account's bearer token.
      const x = requestsTo('x').filter((request) => request.method === 'POST');
      expect(x.map((request) => request.path)).toEqual(expect.arrayContaining(['/x/2/tweets']));
      const tweet = x.find((request) => request.path.endsWith('/2/tweets'))!;
      expect(tweet.headers.authorization).toMatch(/^Bearer /);
      expect(tweet.body.text).toBe('Fresh mugs, fresh coffee');
      expect(tweet.body.media.media_ids).toHaveLength(1);

      // Instagram and Threads: a container, then its publication.
      for (const [platform, container, publishPath] of [
        ['instagram', '/media', '/media_publish'],
        ['threads', '/threads', '/threads_publish'],
      ]) {
        const posts = requestsTo(platform).filter((request) => request.method === 'POST');
        const created = posts.findIndex((request) => request.path.endsWith(container));
        const published = posts.findIndex((request) => request.path.endsWith(publishPath));
        expect(created, platform).toBeGreaterThanOrEqual(0);
        expect(published, platform).toBeGreaterThan(created);
      }
      const history = await api.request('GET', `/functions/v1/social-posts?store_id=${store.storeId}&limit=1`, {
        token: store.token,
      });
      expect(history.body.data[0].status).toBe('partially_published');
    });

    it('an expired token is refreshed and the post sent once more; the new token is kept', async () => {
      const [before] = (await db.query('SELECT access_token_sealed FROM social_accounts WHERE id = $1', [
        accounts.x,
      ])) as {
        access_token_sealed: string;
      }[];
      fake.expireAccessTokens('x');
      const result = await publish({ platforms: ['x'], content: { text: 'After a refresh' } });
      expect(result.body.results[0].status).toBe('published');
      const x = requestsTo('x');
      const tweets = x.filter((request) => request.path.endsWith('/2/tweets'));
      expect(tweets.map((request) => request.status)).toEqual([401, expect.any(Number)]);
      expect(
        x.filter((request) => request.path.endsWith('/2/oauth2/token') && request.body.grant_type === 'refresh_token'),
      ).toHaveLength(1);
      const [after] = (await db.query('SELECT access_token_sealed FROM social_accounts WHERE id = $1', [
        accounts.x,
      ])) as {
        access_token_sealed: string;
      }[];
      expect(after.access_token_sealed).not.toBe(before.access_token_sealed);
    });

    it('429 and 500 on publish now → failed results with their codes; nothing retried blindly', async () => {
      fake.enqueue('x', 'publish', { kind: 'status', status: 429, headers: { 'retry-after': '30' } });
      fake.enqueue('threads', 'publish', { kind: 'status', status: 500 });
      const result = await publish({ platforms: ['x', 'threads'], content: { text: 'Busy' } });
      expect(result.body.success).toBe(false);
      const [x, threads] = result.body.results;
      expect(x).toMatchObject({ platform: 'x', status: 'failed' });
      expect(threads).toMatchObject({ platform: 'threads', status: 'failed' });
      expect(x.error.code).toMatch(/rate/);
      expect(requestsTo('x').filter((request) => request.path.endsWith('/2/tweets'))).toHaveLength(1);
    });

    it('TikTok and YouTube need media: refused before anything is sent; with a video they publish', async () => {
      const refused = await publish({ platforms: ['tiktok', 'youtube'], content: { text: 'No video' } });
      expect(refused.status).toBe(400);
      expect(refused.body.error.details.map((d: { platform: string }) => d.platform).sort()).toEqual([
        'tiktok',
        'youtube',
      ]);
      expect(fake.requests).toHaveLength(0);
      const result = await publish({
        platforms: ['tiktok', 'youtube'],
        content: { text: 'Our mug in action\nMore below', media: [video()] },
      });
      expect(result.status).toBe(200);
      expect(result.body.results.map((item: { status: string }) => item.status)).toEqual(['published', 'published']);
      expect(result.body.results[1].url).toContain('youtube.com/watch?v=');
    });

    // Last of this block: the fake revokes every X token, the main store's included.
    it('a refused refresh marks the account for reconnection', async () => {
      const { token, storeId } = await merchantWithStore(api, 'Revoked');
      const own = { token, storeId };
      const previous = store;
      store = own;
      try {
        await connect('x');
        fake.expireAccessTokens('x', { revokeRefreshTokens: true });
        const result = await publish({ platforms: ['x'], content: { text: 'Revoked' } });
        expect(result.body.results[0]).toMatchObject({ status: 'failed', error: { code: 'reauthorize_required' } });
        const listed = await api.request('GET', `/functions/v1/social-accounts?store_id=${storeId}`, { token });
        expect(listed.body.data[0].status).toBe('reauthorize');
      } finally {
        store = previous;
      }
    });
  });

  describe('scheduled posts', () => {
    it('a 500 is retried after SOCIAL_RETRY_DELAYS_MS and the post then published', async () => {
      fake.enqueue('threads', 'publish', { kind: 'status', status: 500 });
      const result = await publish({
        platforms: ['threads'],
        content: { text: 'Retried' },
        schedule_at: new Date(Date.now() + 1500).toISOString(),
      });
      const postId = result.body.results[0].post_id;
      const post = await eventually(async () => {
        const [row] = (await db.query('SELECT status, attempts FROM social_posts WHERE id = $1', [postId])) as {
          status: string;
          attempts: number;
        }[];
        return row.status === 'published' ? row : null;
      });
      expect(post.attempts).toBe(2);
    });

    it('a platform failing every attempt → failed after the last retry, and the merchant is notified', async () => {
      fake.enqueue('threads', 'publish', ...[1, 2, 3, 4].map(() => ({ kind: 'status' as const, status: 503 })));
      const result = await publish({
        platforms: ['threads'],
        content: { text: 'Doomed' },
        schedule_at: new Date(Date.now() + 1500).toISOString(),
      });
      const postId = result.body.results[0].post_id;
      await eventually(async () => {
        const [row] = (await db.query('SELECT status FROM social_posts WHERE id = $1', [postId])) as {
          status: string;
        }[];
        return row.status === 'failed';
      });
      const [row] = (await db.query('SELECT attempts FROM social_posts WHERE id = $1', [postId])) as {
        attempts: number;
      }[];
      expect(row.attempts).toBe(3);
      // The worker writes the notification just after the post's final status: wait for it.
      const notice = await eventually(async () => {
        const notifications = await api.request('GET', `/functions/v1/notifications?store_id=${store.storeId}`, {
          token: store.token,
        });
        return notifications.body.data.find((item: { data: { post_id?: string } }) => item.data.post_id === postId);
      });
      expect(notice).toMatchObject({ kind: 'social_post_failed' });
      expect(notice.message).toContain('threads');
    });
  });
});
