import { FAKE_ACCOUNTS, FAKE_CLIENTS, type FakePlatformServer } from '../../../../../test/fakes/platform-server.js';
import {
  connectAccount,
  failure,
  fakePlatformConfig,
  FAST_POLLING,
  REDIRECT,
  useFakePlatforms,
} from '../../../../../test/support/platform-fixture.js';
import { InstagramPlatform } from './instagram.platform.js';
import type { AccountCredentials, PostContent } from '../social-platform.js';

const image = { type: 'image' as const, url: 'https://cdn.example.com/mug.jpg' };
const video = { type: 'video' as const, url: 'https://cdn.example.com/mug.mp4' };
const post = (text: string, extra: Partial<PostContent> = {}): PostContent => ({
  text,
  media: [image],
  link: null,
  ...extra,
});

describe('InstagramPlatform (against the fake Graph API)', () => {
  let fake: FakePlatformServer;
  let instagram: InstagramPlatform;
  let account: AccountCredentials;

  const connect = () => connectAccount(fake, instagram);

  useFakePlatforms(async (started) => {
    fake = started;
    instagram = new InstagramPlatform(fakePlatformConfig(fake), FAST_POLLING);
    account = await connect();
  });
  beforeEach(() => {
    fake.processingPolls = 1;
  });

  it('authorize URL: the Facebook Login dialog of the configured version, with the Instagram scopes', () => {
    const url = new URL(instagram.authorizeUrl({ state: 'st', redirectUri: REDIRECT, codeChallenge: null }));
    expect(`${url.origin}${url.pathname}`).toBe(`${fake.url}/meta/www/v21.0/dialog/oauth`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: FAKE_CLIENTS.meta.id,
      redirect_uri: REDIRECT,
      state: 'st',
      response_type: 'code',
      scope: 'instagram_basic,instagram_content_publish,pages_show_list,pages_read_engagement',
    });
    expect(instagram.usesPkce).toBe(false);
  });

  it('code → token → long-lived token; the account is the Page’s Instagram account', async () => {
    const { code } = await fake.consent(
      instagram.authorizeUrl({ state: 's', redirectUri: REDIRECT, codeChallenge: null }),
    );
    const profile = await instagram.exchangeCode({ code, redirectUri: REDIRECT, codeVerifier: null });
    expect(profile).toMatchObject({
      accountId: FAKE_ACCOUNTS.instagram.id,
      username: FAKE_ACCOUNTS.instagram.username,
    });
    expect(profile.tokens.refreshToken).toBeNull();
    expect(profile.tokens.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 50 * 86400_000);
    const [short, long] = fake.requestsTo('instagram', 'token');
    expect(short.query).toMatchObject({
      client_id: FAKE_CLIENTS.meta.id,
      client_secret: FAKE_CLIENTS.meta.secret,
      redirect_uri: REDIRECT,
      code,
    });
    expect(long.query).toMatchObject({ grant_type: 'fb_exchange_token' });
    expect(long.query.fb_exchange_token).not.toBe(profile.tokens.accessToken);
    const [pages] = fake.requestsTo('instagram', 'profile');
    expect(pages.path).toBe('/meta/graph/v21.0/me/accounts');
    expect(pages.query.fields).toContain('instagram_business_account{id,username}');
    expect(pages.query.access_token).toBe(profile.tokens.accessToken);
  });

  it('validate: media required, caption ≤ 2200 (the link counts)', () => {
    expect(instagram.validate(post('hi'))).toEqual([]);
    expect(instagram.validate(post('hi', { media: [] }))).toEqual(['Instagram needs an image or a video']);
    expect(instagram.validate(post('a'.repeat(2200)))).toEqual([]);
    expect(instagram.validate(post('a'.repeat(2201)))).toEqual([
      expect.stringContaining('2,200 characters of caption; this has 2,201'),
    ]);
    expect(instagram.validate(post('a'.repeat(2190), { link: 'https://a.example/x' }))).toHaveLength(1);
  });

  it('publishes an image: container, status until FINISHED, media_publish, permalink', async () => {
    const published = await instagram.publish(account, post('New mugs', { link: 'https://shop.example.com' }));
    const calls = fake.requestsTo('instagram').map((request) => `${request.method} ${request.operation}`);
    expect(calls).toEqual(['POST container', 'GET status', 'GET status', 'POST publish', 'GET permalink']);
    const [container] = fake.requestsTo('instagram', 'container');
    expect(container.path).toBe(`/meta/graph/v21.0/${FAKE_ACCOUNTS.instagram.id}/media`);
    expect(container.body).toEqual({
      image_url: image.url,
      caption: 'New mugs\nhttps://shop.example.com',
      access_token: account.accessToken,
    });
    const [publish] = fake.requestsTo('instagram', 'publish');
    expect(publish.path).toBe(`/meta/graph/v21.0/${FAKE_ACCOUNTS.instagram.id}/media_publish`);
    expect(publish.body.creation_id).toBe(fake.requestsTo('instagram', 'status')[0].path.split('/').pop());
    expect(fake.posts).toEqual([
      expect.objectContaining({ platform: 'instagram', text: 'New mugs\nhttps://shop.example.com', media: [image] }),
    ]);
    expect(published).toEqual({
      id: fake.posts[0].id,
      url: expect.stringMatching(/^https:\/\/www\.instagram\.com\/p\//),
    });
  });

  it('a video (the first medium) is published as a Reel', async () => {
    await instagram.publish(account, post('Clip', { media: [video, image] }));
    const [container] = fake.requestsTo('instagram', 'container');
    expect(container.body).toMatchObject({ media_type: 'REELS', video_url: video.url });
    expect(container.body.image_url).toBeUndefined();
  });

  it('a container still IN_PROGRESS after the polls → transient, nothing published; ERROR → rejected', async () => {
    fake.processingPolls = 10;
    const slow = await failure(instagram.publish(account, post('slow')));
    expect(slow).toMatchObject({ kind: 'transient', code: 'media_processing' });
    expect(fake.requestsTo('instagram', 'status')).toHaveLength(FAST_POLLING.attempts);
    expect(fake.requestsTo('instagram', 'publish')).toHaveLength(0);
    fake.processingPolls = 1;
    fake.enqueue('instagram', 'status', {
      kind: 'status',
      status: 200,
      body: { status_code: 'ERROR', status: 'Error: media could not be fetched' },
    });
    const broken = await failure(instagram.publish(account, post('broken')));
    expect(broken).toMatchObject({ kind: 'rejected', code: 'instagram_media_error' });
    expect(broken.message).toContain('media could not be fetched');
    expect(fake.posts).toHaveLength(0);
  });

  it('code 190 (expired token, HTTP 400) → auth_expired; refresh extends the token, which then publishes', async () => {
    const own = await connect();
    fake.expireAccessTokens('instagram');
    const expired = await failure(instagram.publish(own, post('x')));
    expect(expired.kind).toBe('auth_expired');
    expect(expired.message).not.toContain(own.accessToken);
    const tokens = await instagram.refresh(own);
    expect(tokens.accessToken).not.toBe(own.accessToken);
    expect(fake.requestsTo('instagram', 'token').at(-1)!.query).toMatchObject({
      grant_type: 'fb_exchange_token',
      fb_exchange_token: own.accessToken,
    });
    await instagram.publish({ ...own, ...tokens }, post('again'));
    expect(fake.posts).toHaveLength(1);
    fake.expireAccessTokens('instagram', { revokeRefreshTokens: true });
    expect((await failure(instagram.refresh({ ...own, ...tokens }))).kind).toBe('reauthorize');
    account = await connect();
  });

  it(
    'Graph errors: rate limit code 4 → rate_limited; 400 → rejected ' +
      'with Meta’s message; a slow media_publish → unknown_outcome',
    async () => {
      fake.enqueue('instagram', 'container', {
        kind: 'status',
        status: 400,
        body: { error: { message: '(#4) Application request limit reached', code: 4 } },
      });
      expect((await failure(instagram.publish(account, post('a')))).kind).toBe('rate_limited');
      fake.enqueue('instagram', 'container', {
        kind: 'status',
        status: 400,
        body: {
          error: { message: 'Only photo or video can be accepted as media type.', code: 9004, error_subcode: 2207052 },
        },
      });
      const refused = await failure(instagram.publish(account, post('a')));
      expect(refused).toMatchObject({
        kind: 'rejected',
        code: 'instagram_9004_2207052',
        message: 'Instagram: Only photo or video can be accepted as media type.',
      });
      fake.enqueue('instagram', 'publish', { kind: 'delay', ms: 1500, then: { kind: 'default' } });
      expect((await failure(instagram.publish(account, post('a')))).kind).toBe('unknown_outcome');
    },
  );
});
