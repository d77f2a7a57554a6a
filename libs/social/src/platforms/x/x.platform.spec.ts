import { createHash, randomBytes } from 'node:crypto';
import type { SafeHttpClient } from '@app/core';
import { socialConfig } from '../../social.config.js';
import { FAKE_ACCOUNTS, FAKE_CLIENTS, FakePlatformServer } from '../../../../../test/fakes/platform-server.js';
import { ImageServer } from '../../../../../test/fakes/image-server.js';
import {
  connectAccount,
  failure,
  fakePlatformConfig,
  FAST_POLLING,
  localMediaClient,
  pkce,
  REDIRECT,
  useFakePlatforms,
} from '../../../../../test/support/platform-fixture.js';
import type { AccountCredentials, PostContent } from '../social-platform.js';
import { XPlatform } from './x.platform.js';

const post = (text: string, extra: Partial<PostContent> = {}): PostContent => ({
  text,
  media: [],
  link: null,
  ...extra,
});

describe('XPlatform (against the fake X API)', () => {
  let fake: FakePlatformServer;
  let media: ImageServer;
  let http: SafeHttpClient;
  let x: XPlatform;
  const photo = randomBytes(2048);
  const clip = randomBytes(5 * 1024 * 1024 + 100); // two append segments

  const connect = () => connectAccount(fake, x);

  useFakePlatforms(async (started) => {
    fake = started;
    media = await new ImageServer({
      '/photo.jpg': { headers: { 'content-type': 'image/jpeg' }, body: photo },
      '/clip.mp4': { headers: { 'content-type': 'video/mp4' }, body: clip },
    }).start();
    http = localMediaClient();
    x = new XPlatform(fakePlatformConfig(fake), http, FAST_POLLING);
  });
  afterAll(async () => {
    await http?.close();
    await media?.stop();
  });

  it('is configured by its client id; PKCE is required', () => {
    expect(x.configured).toBe(true);
    expect(x.usesPkce).toBe(true);
    expect(new XPlatform(socialConfig.from({ NODE_ENV: 'test' }), http).configured).toBe(false);
  });

  it('authorize URL: code flow with the client id, callback, scopes, state and an S256 challenge', () => {
    const url = new URL(x.authorizeUrl({ state: 'st4te', redirectUri: REDIRECT, codeChallenge: 'ch4llenge' }));
    expect(`${url.origin}${url.pathname}`).toBe(`${fake.url}/x/i/oauth2/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: FAKE_CLIENTS.x.id,
      redirect_uri: REDIRECT,
      scope: 'tweet.read tweet.write users.read media.write offline.access',
      state: 'st4te',
      code_challenge: 'ch4llenge',
      code_challenge_method: 'S256',
    });
  });

  it('exchanges the code with the verifier of the challenge (HTTP Basic) and reads the user', async () => {
    const { verifier, challenge } = pkce();
    const { code, state } = await fake.consent(
      x.authorizeUrl({ state: 'abc', redirectUri: REDIRECT, codeChallenge: challenge }),
    );
    expect(state).toBe('abc');
    const profile = await x.exchangeCode({ code, redirectUri: REDIRECT, codeVerifier: verifier });
    expect(profile).toMatchObject({
      accountId: FAKE_ACCOUNTS.x.id,
      username: FAKE_ACCOUNTS.x.username,
      displayName: FAKE_ACCOUNTS.x.name,
    });
    expect(profile.tokens.accessToken).toMatch(/^x-at-/);
    expect(profile.tokens.refreshToken).toMatch(/^x-rt-/);
    expect(profile.tokens.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 7100_000);
    expect(profile.tokens.scopes).toContain('offline.access');

    const [token] = fake.requestsTo('x', 'token');
    expect(token.body).toMatchObject({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    });
    expect(createHash('sha256').update(token.body.code_verifier).digest('base64url')).toBe(challenge);
    expect(token.headers.authorization).toBe(
      `Basic ${Buffer.from(`${FAKE_CLIENTS.x.id}:${FAKE_CLIENTS.x.secret}`).toString('base64')}`,
    );
    expect(token.body.client_id).toBeUndefined();
    const [me] = fake.requestsTo('x', 'profile');
    expect(me.headers.authorization).toBe(`Bearer ${profile.tokens.accessToken}`);
  });

  it('a public client (no secret) sends its client_id in the body instead of Basic', async () => {
    const publicX = new XPlatform(
      socialConfig.from({ ...process.env, ...fake.env(), X_CLIENT_SECRET: '' }),
      http,
      FAST_POLLING,
    );
    const { verifier, challenge } = pkce();
    const { code } = await fake.consent(
      publicX.authorizeUrl({ state: 's', redirectUri: REDIRECT, codeChallenge: challenge }),
    );
    await publicX.exchangeCode({ code, redirectUri: REDIRECT, codeVerifier: verifier });
    const [token] = fake.requestsTo('x', 'token');
    expect(token.headers.authorization).toBeUndefined();
    expect(token.body.client_id).toBe(FAKE_CLIENTS.x.id);
  });

  it('a wrong verifier or a reused code is refused (rejected, no secret in the message)', async () => {
    const { verifier, challenge } = pkce();
    const { code } = await fake.consent(
      x.authorizeUrl({ state: 's', redirectUri: REDIRECT, codeChallenge: challenge }),
    );
    const wrong = await failure(x.exchangeCode({ code, redirectUri: REDIRECT, codeVerifier: pkce().verifier }));
    expect(wrong.kind).toBe('rejected');
    expect(wrong.code).toBe('x_invalid_request');
    expect(wrong.message).toContain('code_verifier does not match');
    expect(wrong.message).not.toContain(FAKE_CLIENTS.x.secret);
    // Spent by the failed attempt: single use.
    const again = await failure(x.exchangeCode({ code, redirectUri: REDIRECT, codeVerifier: verifier }));
    expect(again.message).toContain('already used');
  });

  describe('validate', () => {
    it('280 weighted characters pass, 281 do not; a URL counts 23', () => {
      expect(x.validate(post('a'.repeat(280)))).toEqual([]);
      expect(x.validate(post('a'.repeat(281)))).toEqual([
        expect.stringMatching(/280 weighted characters.*this has 281/),
      ]);
      const url = 'https://shop.example.com/a/very/long/path/that/still/counts/as/twenty/three';
      expect(x.validate(post(`${'a'.repeat(257)} ${url}`))).toHaveLength(1);
      expect(x.validate(post(`${'a'.repeat(256)} ${url}`))).toEqual([]);
    });

    it('a link is appended on its own line and counts 23 (+1 for the line break)', () => {
      const link = 'https://shop.example.com/mugs';
      expect(x.validate(post('a'.repeat(256), { link }))).toEqual([]);
      expect(x.validate(post('a'.repeat(257), { link }))).toHaveLength(1);
    });

    it('media: at most 4 images, or one video alone', () => {
      const image = { type: 'image' as const, url: 'https://cdn.example/a.jpg' };
      const video = { type: 'video' as const, url: 'https://cdn.example/a.mp4' };
      expect(x.validate(post('hi', { media: [image, image, image, image] }))).toEqual([]);
      expect(x.validate(post('hi', { media: [image, image, image, image, image] }))).toEqual([
        'X takes at most 4 images; this has 5',
      ]);
      expect(x.validate(post('hi', { media: [video] }))).toEqual([]);
      expect(x.validate(post('hi', { media: [video, image] }))).toEqual([expect.stringContaining('at most 1 video')]);
      expect(x.validate(post('  '))).toEqual(['X needs text or media']);
    });
  });

  describe('publish', () => {
    let account: AccountCredentials;
    beforeAll(async () => {
      account = await connect();
    });

    it('posts the text (and link) with the bearer token; the id and the x.com URL', async () => {
      const published = await x.publish(account, post('Fresh mugs', { link: 'https://shop.example.com/mugs' }));
      const [tweet] = fake.requestsTo('x', 'publish');
      expect(tweet.method).toBe('POST');
      expect(tweet.path).toBe('/x/2/tweets');
      expect(tweet.headers.authorization).toBe(`Bearer ${account.accessToken}`);
      expect(tweet.body).toEqual({ text: 'Fresh mugs\nhttps://shop.example.com/mugs' });
      expect(fake.posts).toHaveLength(1);
      expect(published).toEqual({ id: fake.posts[0].id, url: `https://x.com/i/web/status/${fake.posts[0].id}` });
    });

    it('uploads images first (their bytes, base64) and names them in the post', async () => {
      await x.publish(
        account,
        post('Two photos', {
          media: [
            { type: 'image', url: `${media.url}/photo.jpg` },
            { type: 'image', url: `${media.url}/photo.jpg` },
          ],
        }),
      );
      const uploads = fake.requestsTo('x', 'media');
      expect(uploads).toHaveLength(2);
      expect(uploads[0].body).toEqual({
        media: photo.toString('base64'),
        media_category: 'tweet_image',
        media_type: 'image/jpeg',
      });
      const order = fake.requests.map((request) => request.operation);
      expect(order).toEqual(['media', 'media', 'publish']);
      const [tweet] = fake.requestsTo('x', 'publish');
      expect(tweet.body.media.media_ids).toHaveLength(2);
      expect(fake.posts[0].media.map((item) => item.type)).toEqual(['image', 'image']);
    });

    it('a video goes through the chunked upload and waits for processing', async () => {
      await x.publish(account, post('A clip', { media: [{ type: 'video', url: `${media.url}/clip.mp4` }] }));
      const steps = fake
        .requestsTo('x')
        .map((request) => `${request.operation} ${request.path.replace(/\d{10,}/, ':id')}`);
      expect(steps).toEqual([
        'media /x/2/media/upload/initialize',
        'media /x/2/media/upload/:id/append',
        'media /x/2/media/upload/:id/append',
        'media /x/2/media/upload/:id/finalize',
        'status /x/2/media/upload',
        'status /x/2/media/upload',
        'publish /x/2/tweets',
      ]);
      expect(fake.requestsTo('x', 'media')[0].body).toEqual({
        media_type: 'video/mp4',
        total_bytes: clip.length,
        media_category: 'tweet_video',
      });
      expect(fake.posts[0].media).toEqual([{ type: 'video', url: expect.any(String) }]);
    });

    it('media that cannot be downloaded is rejected, naming the media, before anything is posted', async () => {
      const error = await failure(
        x.publish(account, post('x', { media: [{ type: 'image', url: `${media.url}/missing.jpg` }] })),
      );
      expect(error.kind).toBe('rejected');
      expect(error.code).toBe('media_unreachable');
      expect(error.message).toContain('/missing.jpg answered HTTP 404');
      expect(fake.requestsTo('x')).toHaveLength(0);
    });

    it('an expired token → auth_expired; refresh rotates the tokens and the new one posts', async () => {
      const own = await connect();
      fake.expireAccessTokens('x');
      const expired = await failure(x.publish(own, post('after expiry')));
      expect(expired.kind).toBe('auth_expired');
      expect(expired.message).not.toContain(own.accessToken);
      const tokens = await x.refresh(own);
      expect(tokens.accessToken).not.toBe(own.accessToken);
      expect(tokens.refreshToken).not.toBe(own.refreshToken);
      const refresh = fake.requestsTo('x', 'token').at(-1)!;
      expect(refresh.body).toEqual({ grant_type: 'refresh_token', refresh_token: own.refreshToken });
      const published = await x.publish({ ...own, ...tokens }, post('after refresh'));
      expect(published.id).toBe(fake.posts.at(-1)!.id);
      // The old refresh token was spent (rotation): using it again needs a new connect.
      const reused = await failure(x.refresh(own));
      expect(reused.kind).toBe('reauthorize');
      account = await connect();
    });

    it('a revoked refresh token → reauthorize', async () => {
      const own = await connect();
      fake.expireAccessTokens('x', { revokeRefreshTokens: true });
      expect((await failure(x.refresh(own))).kind).toBe('reauthorize');
      account = await connect();
    });

    it('429 → rate_limited with Retry-After, or with x-rate-limit-reset', async () => {
      fake.enqueue('x', 'publish', { kind: 'status', status: 429, headers: { 'retry-after': '30' } });
      const limited = await failure(x.publish(account, post('busy')));
      expect(limited).toMatchObject({ kind: 'rate_limited', code: 'rate_limited', retryAfterMs: 30_000 });
      const reset = Math.floor(Date.now() / 1000) + 120;
      fake.enqueue('x', 'publish', { kind: 'status', status: 429, headers: { 'x-rate-limit-reset': String(reset) } });
      const again = await failure(x.publish(account, post('busy')));
      expect(again.retryAfterMs).toBeGreaterThan(100_000);
      expect(again.retryAfterMs).toBeLessThanOrEqual(120_000);
      expect(fake.posts).toHaveLength(0);
    });

    it('500 → transient; 403 → rejected with X’s message', async () => {
      fake.enqueue('x', 'publish', { kind: 'status', status: 500 });
      expect((await failure(x.publish(account, post('a')))).kind).toBe('transient');
      fake.enqueue('x', 'publish', {
        kind: 'status',
        status: 403,
        body: {
          title: 'Forbidden',
          detail: 'You are not allowed to create a Tweet with duplicate content.',
          type: 'about:blank',
          status: 403,
        },
      });
      const refused = await failure(x.publish(account, post('a')));
      expect(refused.kind).toBe('rejected');
      expect(refused.message).toBe('X: You are not allowed to create a Tweet with duplicate content.');
    });

    it('no answer within the timeout: unknown_outcome for the post, transient for a media upload', async () => {
      fake.enqueue('x', 'publish', { kind: 'delay', ms: 1500, then: { kind: 'default' } });
      const unknown = await failure(x.publish(account, post('slow')));
      expect(unknown).toMatchObject({ kind: 'unknown_outcome', code: 'unknown_outcome' });
      fake.enqueue('x', 'media', { kind: 'delay', ms: 1500, then: { kind: 'default' } });
      const upload = await failure(
        x.publish(account, post('slow', { media: [{ type: 'image', url: `${media.url}/photo.jpg` }] })),
      );
      expect(upload.kind).toBe('transient');
      expect(fake.requestsTo('x', 'publish')).toHaveLength(1);
    });

    it('a connection broken after sending → unknown_outcome; a refused connection → transient', async () => {
      fake.enqueue('x', 'publish', { kind: 'drop' });
      expect((await failure(x.publish(account, post('dropped')))).kind).toBe('unknown_outcome');
      const closed = await FakePlatformServer.start();
      const env = closed.env();
      await closed.close();
      const nowhere = new XPlatform(socialConfig.from({ ...process.env, ...env }), http, FAST_POLLING);
      const refused = await failure(nowhere.publish(account, post('nowhere')));
      expect(refused).toMatchObject({ kind: 'transient', code: 'platform_unreachable' });
    });
  });
});
