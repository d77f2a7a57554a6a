import { createHash } from 'node:crypto';
import { FAKE_ACCOUNTS, FAKE_CLIENTS, type FakePlatformServer } from '../../../../../test/fakes/platform-server.js';
import {
  connectAccount,
  failure,
  fakePlatformConfig,
  FAST_POLLING,
  pkce,
  REDIRECT,
  useFakePlatforms,
} from '../../../../../test/support/platform-fixture.js';
import type { AccountCredentials, PostContent } from '../social-platform.js';
import { TikTokPlatform } from './tiktok.platform.js';

const video = { type: 'video' as const, url: 'https://cdn.example.com/clip.mp4' };
const image = { type: 'image' as const, url: 'https://cdn.example.com/a.jpg' };
const post = (text: string, extra: Partial<PostContent> = {}): PostContent => ({
  text,
  media: [video],
  link: null,
  ...extra,
});

describe('TikTokPlatform (against the fake TikTok API)', () => {
  let fake: FakePlatformServer;
  let tiktok: TikTokPlatform;
  let account: AccountCredentials;

  const connect = () => connectAccount(fake, tiktok);

  useFakePlatforms(async (started) => {
    fake = started;
    tiktok = new TikTokPlatform(fakePlatformConfig(fake), FAST_POLLING);
    account = await connect();
  });
  beforeEach(() => {
    fake.processingPolls = 1;
  });

  it('authorize URL: client_key, comma-separated scopes, S256 challenge', () => {
    const url = new URL(tiktok.authorizeUrl({ state: 'st', redirectUri: REDIRECT, codeChallenge: 'chal' }));
    expect(`${url.origin}${url.pathname}`).toBe(`${fake.url}/tiktok/v2/auth/authorize/`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_key: FAKE_CLIENTS.tiktok.id,
      scope: 'user.info.basic,video.publish',
      response_type: 'code',
      redirect_uri: REDIRECT,
      state: 'st',
      code_challenge: 'chal',
      code_challenge_method: 'S256',
    });
  });

  it(
    'code exchange sends the verifier of the challenge; ' + 'profile from user/info, username from creator_info',
    async () => {
      const { verifier, challenge } = pkce();
      const { code } = await fake.consent(
        tiktok.authorizeUrl({ state: 's', redirectUri: REDIRECT, codeChallenge: challenge }),
      );
      const profile = await tiktok.exchangeCode({ code, redirectUri: REDIRECT, codeVerifier: verifier });
      expect(profile).toMatchObject({
        accountId: FAKE_ACCOUNTS.tiktok.openId,
        username: FAKE_ACCOUNTS.tiktok.username,
        displayName: FAKE_ACCOUNTS.tiktok.displayName,
      });
      expect(profile.tokens.refreshToken).toMatch(/^tiktok-rt-/);
      const [token] = fake.requestsTo('tiktok', 'token');
      expect(token.body).toEqual({
        client_key: FAKE_CLIENTS.tiktok.id,
        client_secret: FAKE_CLIENTS.tiktok.secret,
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      });
      expect(createHash('sha256').update(token.body.code_verifier).digest('base64url')).toBe(challenge);
      expect(fake.requestsTo('tiktok', 'profile')[0].query.fields).toBe('open_id,display_name');
      const wrong = await failure(tiktok.exchangeCode({ code, redirectUri: REDIRECT, codeVerifier: verifier }));
      expect(wrong).toMatchObject({ kind: 'rejected', code: 'tiktok_invalid_grant' });
    },
  );

  it('validate: media required; caption ≤ 2200', () => {
    expect(tiktok.validate(post('hi'))).toEqual([]);
    expect(tiktok.validate(post('hi', { media: [] }))).toEqual(['TikTok needs a video or images']);
    expect(tiktok.validate(post('a'.repeat(2201)))).toEqual([expect.stringContaining('2,200 characters of caption')]);
  });

  it(
    'a video: creator_info, video/init pulling from the ' + 'URL, status until PUBLISH_COMPLETE; the post id and URL',
    async () => {
      const published = await tiktok.publish(account, post('Our mug', { link: 'https://shop.example.com' }));
      expect(fake.requestsTo('tiktok').map((request) => request.operation)).toEqual([
        'creator-info',
        'publish',
        'status',
        'status',
      ]);
      const [init] = fake.requestsTo('tiktok', 'publish');
      expect(init.path).toBe('/tiktok/api/v2/post/publish/video/init/');
      expect(init.headers.authorization).toBe(`Bearer ${account.accessToken}`);
      expect(init.body).toEqual({
        post_info: { title: 'Our mug\nhttps://shop.example.com', privacy_level: 'PUBLIC_TO_EVERYONE' },
        source_info: { source: 'PULL_FROM_URL', video_url: video.url },
      });
      expect(fake.requestsTo('tiktok', 'status')[0].body.publish_id).toMatch(/^v_pub_url~/);
      const id = fake.posts[0].id;
      expect(published).toEqual({ id, url: `https://www.tiktok.com/@${FAKE_ACCOUNTS.tiktok.username}/video/${id}` });
    },
  );

  it('images: a photo post through content/init', async () => {
    await tiktok.publish(account, post('Photos', { media: [image, image] }));
    const [init] = fake.requestsTo('tiktok', 'publish');
    expect(init.path).toBe('/tiktok/api/v2/post/publish/content/init/');
    expect(init.body).toMatchObject({
      post_mode: 'DIRECT_POST',
      media_type: 'PHOTO',
      post_info: { title: 'Photos', description: 'Photos' },
      source_info: { source: 'PULL_FROM_URL', photo_cover_index: 0, photo_images: [image.url, image.url] },
    });
  });

  it(
    'still processing after the polls: published with ' + 'the publish_id and the profile URL (never sent again)',
    async () => {
      fake.processingPolls = 50;
      const published = await tiktok.publish(account, post('slow'));
      expect(published.id).toMatch(/^v_pub_url~/);
      expect(published.url).toBe(`https://www.tiktok.com/@${FAKE_ACCOUNTS.tiktok.username}`);
      expect(fake.requestsTo('tiktok', 'publish')).toHaveLength(1);
    },
  );

  it('FAILED status → rejected with the reason', async () => {
    fake.enqueue('tiktok', 'status', {
      kind: 'status',
      status: 200,
      body: { data: { status: 'FAILED', fail_reason: 'file_format_check_failed' }, error: { code: 'ok' } },
    });
    expect(await failure(tiktok.publish(account, post('bad')))).toMatchObject({
      kind: 'rejected',
      code: 'tiktok_publish_failed',
    });
  });

  it(
    'errors inside HTTP 200 are classified; access_token_invalid ' + '→ auth_expired; refresh rotates and works',
    async () => {
      fake.enqueue('tiktok', 'publish', {
        kind: 'status',
        status: 200,
        body: { data: {}, error: { code: 'spam_risk_too_many_posts', message: 'The daily post cap was reached.' } },
      });
      expect(await failure(tiktok.publish(account, post('a')))).toMatchObject({
        kind: 'rejected',
        code: 'tiktok_spam_risk_too_many_posts',
        message: 'TikTok: The daily post cap was reached.',
      });
      const own = await connect();
      fake.expireAccessTokens('tiktok');
      expect((await failure(tiktok.publish(own, post('a')))).kind).toBe('auth_expired');
      const tokens = await tiktok.refresh(own);
      expect(tokens.refreshToken).not.toBe(own.refreshToken);
      expect(fake.requestsTo('tiktok', 'token').at(-1)!.body).toMatchObject({
        grant_type: 'refresh_token',
        refresh_token: own.refreshToken,
      });
      await tiktok.publish({ ...own, ...tokens }, post('again'));
      expect(fake.posts).toHaveLength(1);
      expect((await failure(tiktok.refresh(own))).kind).toBe('reauthorize');
      account = await connect();
    },
  );

  it(
    'rate_limit_exceeded (429) → rate_limited; internal_error ' + '(500) → transient; slow init → unknown_outcome',
    async () => {
      fake.enqueue('tiktok', 'publish', { kind: 'status', status: 429, headers: { 'retry-after': '3' } });
      expect(await failure(tiktok.publish(account, post('a')))).toMatchObject({
        kind: 'rate_limited',
        retryAfterMs: 3000,
      });
      fake.enqueue('tiktok', 'publish', { kind: 'status', status: 500 });
      expect((await failure(tiktok.publish(account, post('a')))).kind).toBe('transient');
      fake.enqueue('tiktok', 'publish', { kind: 'delay', ms: 1500, then: { kind: 'default' } });
      expect((await failure(tiktok.publish(account, post('a')))).kind).toBe('unknown_outcome');
    },
  );
});
