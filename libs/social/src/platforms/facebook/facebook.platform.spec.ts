import { FAKE_ACCOUNTS, FAKE_CLIENTS, type FakePlatformServer } from '../../../../../test/fakes/platform-server.js';
import {
  connectAccount,
  failure,
  fakePlatformConfig,
  REDIRECT,
  useFakePlatforms,
} from '../../../../../test/support/platform-fixture.js';
import { FacebookPlatform } from './facebook.platform.js';
import type { AccountCredentials, PostContent } from '../social-platform.js';
import { socialConfig } from '../../social.config.js';

const post = (text: string, extra: Partial<PostContent> = {}): PostContent => ({
  text,
  media: [],
  link: null,
  ...extra,
});

describe('FacebookPlatform (against the fake Graph API)', () => {
  let fake: FakePlatformServer;
  let facebook: FacebookPlatform;
  let account: AccountCredentials;

  const connect = () => connectAccount(fake, facebook);

  useFakePlatforms(async (started) => {
    fake = started;
    facebook = new FacebookPlatform(fakePlatformConfig(fake));
    account = await connect();
  });

  it('authorize URL: the Facebook Login dialog with the Page scopes; configured by app id and secret', () => {
    const url = new URL(facebook.authorizeUrl({ state: 'st', redirectUri: REDIRECT, codeChallenge: null }));
    expect(`${url.origin}${url.pathname}`).toBe(`${fake.url}/meta/www/v21.0/dialog/oauth`);
    expect(url.searchParams.get('client_id')).toBe(FAKE_CLIENTS.meta.id);
    expect(url.searchParams.get('scope')).toBe('pages_show_list,pages_manage_posts,pages_read_engagement');
    expect(url.searchParams.get('redirect_uri')).toBe(REDIRECT);
    expect(facebook.configured).toBe(true);
    expect(new FacebookPlatform(socialConfig.from({ NODE_ENV: 'test', META_APP_ID: 'only-the-id' })).configured).toBe(
      false,
    );
  });

  it('connect: the account is the first Page; its Page token posts, the user token is kept to renew it', async () => {
    const { code } = await fake.consent(
      facebook.authorizeUrl({ state: 's', redirectUri: REDIRECT, codeChallenge: null }),
    );
    const profile = await facebook.exchangeCode({ code, redirectUri: REDIRECT, codeVerifier: null });
    expect(profile).toMatchObject({ accountId: FAKE_ACCOUNTS.facebook.id, username: FAKE_ACCOUNTS.facebook.name });
    const tokens = fake.requestsTo('facebook', 'token');
    expect(tokens.map((request) => request.query.grant_type ?? 'code')).toEqual(['code', 'fb_exchange_token']);
    const [pages] = fake.requestsTo('facebook', 'profile');
    expect(profile.tokens.refreshToken).toBe(pages.query.access_token);
    expect(profile.tokens.accessToken).not.toBe(profile.tokens.refreshToken);
    expect(profile.tokens.expiresAt).toBeNull();
  });

  it('validate: ≤ 63,206 characters; no videos', () => {
    expect(facebook.validate(post('a'.repeat(63206)))).toEqual([]);
    expect(facebook.validate(post('a'.repeat(63207)))).toEqual([expect.stringContaining('63,206')]);
    expect(facebook.validate(post('hi', { media: [{ type: 'video', url: 'https://a.example/v.mp4' }] }))).toHaveLength(
      1,
    );
    expect(facebook.validate(post(''))).toEqual(['Facebook needs text, a link or an image']);
  });

  it('publishes text and link to /{page-id}/feed with the Page token; the post URL', async () => {
    const published = await facebook.publish(account, post('Hello', { link: 'https://shop.example.com' }));
    const [feed] = fake.requestsTo('facebook', 'publish');
    expect(feed.method).toBe('POST');
    expect(feed.path).toBe(`/meta/graph/v21.0/${FAKE_ACCOUNTS.facebook.id}/feed`);
    expect(feed.body).toEqual({
      message: 'Hello',
      link: 'https://shop.example.com',
      access_token: account.accessToken,
    });
    expect(published).toEqual({ id: fake.posts[0].id, url: `https://www.facebook.com/${fake.posts[0].id}` });
    expect(published.id).toMatch(new RegExp(`^${FAKE_ACCOUNTS.facebook.id}_\\d+$`));
  });

  it('an image goes to /{page-id}/photos with the caption; the page post id is returned', async () => {
    const published = await facebook.publish(
      account,
      post('Photo', { media: [{ type: 'image', url: 'https://cdn.example.com/a.jpg' }] }),
    );
    const [photo] = fake.requestsTo('facebook', 'publish');
    expect(photo.path.endsWith('/photos')).toBe(true);
    expect(photo.body).toMatchObject({ url: 'https://cdn.example.com/a.jpg', caption: 'Photo' });
    expect(published.id).toBe(fake.posts[0].id);
  });

  it(
    'expired Page token (code 190) → auth_expired; refresh ' + 'extends the user token and reads a new Page token',
    async () => {
      const own = await connect();
      fake.expireAccessTokens('facebook');
      expect((await failure(facebook.publish(own, post('x')))).kind).toBe('auth_expired');
      const tokens = await facebook.refresh(own);
      expect(tokens.accessToken).not.toBe(own.accessToken);
      expect(fake.requestsTo('facebook', 'token').at(-1)!.query.fb_exchange_token).toBe(own.refreshToken);
      await facebook.publish({ ...own, ...tokens }, post('again'));
      expect(fake.posts).toHaveLength(1);
      fake.expireAccessTokens('facebook', { revokeRefreshTokens: true });
      expect((await failure(facebook.refresh({ ...own, ...tokens }))).kind).toBe('reauthorize');
      account = await connect();
    },
  );

  it('400 → rejected with Meta’s message; 500 → transient; 429 → rate_limited with Retry-After', async () => {
    fake.enqueue('facebook', 'publish', {
      kind: 'status',
      status: 400,
      body: { error: { message: 'Duplicate status message', code: 506 } },
    });
    expect(await failure(facebook.publish(account, post('dup')))).toMatchObject({
      kind: 'rejected',
      code: 'facebook_506',
      message: 'Facebook: Duplicate status message',
    });
    fake.enqueue('facebook', 'publish', { kind: 'status', status: 500 });
    expect((await failure(facebook.publish(account, post('a')))).kind).toBe('transient');
    fake.enqueue('facebook', 'publish', { kind: 'status', status: 429, headers: { 'retry-after': '7' } });
    expect(await failure(facebook.publish(account, post('a')))).toMatchObject({
      kind: 'rate_limited',
      retryAfterMs: 7000,
    });
  });
});
