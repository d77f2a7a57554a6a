import { FAKE_ACCOUNTS, FAKE_CLIENTS, type FakePlatformServer } from '../../../../../test/fakes/platform-server.js';
import {
  connectAccount,
  failure,
  fakePlatformConfig,
  FAST_POLLING,
  REDIRECT,
  useFakePlatforms,
} from '../../../../../test/support/platform-fixture.js';
import type { AccountCredentials, PostContent } from '../social-platform.js';
import { ThreadsPlatform } from './threads.platform.js';

const post = (text: string, extra: Partial<PostContent> = {}): PostContent => ({
  text,
  media: [],
  link: null,
  ...extra,
});

describe('ThreadsPlatform (against the fake Threads API)', () => {
  let fake: FakePlatformServer;
  let threads: ThreadsPlatform;
  let account: AccountCredentials;

  const connect = () => connectAccount(fake, threads);

  useFakePlatforms(async (started) => {
    fake = started;
    threads = new ThreadsPlatform(fakePlatformConfig(fake), FAST_POLLING);
    account = await connect();
  });

  it('authorize URL: client id, callback, scopes, state', () => {
    const url = new URL(threads.authorizeUrl({ state: 'st', redirectUri: REDIRECT, codeChallenge: null }));
    expect(`${url.origin}${url.pathname}`).toBe(`${fake.url}/threads/oauth/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: FAKE_CLIENTS.threads.id,
      redirect_uri: REDIRECT,
      scope: 'threads_basic,threads_content_publish',
      response_type: 'code',
      state: 'st',
    });
  });

  it('code → short-lived token (POST) → long-lived token → the profile', async () => {
    const { code } = await fake.consent(
      threads.authorizeUrl({ state: 's', redirectUri: REDIRECT, codeChallenge: null }),
    );
    const profile = await threads.exchangeCode({ code, redirectUri: REDIRECT, codeVerifier: null });
    expect(profile).toMatchObject({ accountId: FAKE_ACCOUNTS.threads.id, username: FAKE_ACCOUNTS.threads.username });
    expect(profile.tokens.refreshToken).toBeNull();
    expect(profile.tokens.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 50 * 86400_000);
    const [short, long] = fake.requestsTo('threads', 'token');
    expect(short.method).toBe('POST');
    expect(short.body).toEqual({
      client_id: FAKE_CLIENTS.threads.id,
      client_secret: FAKE_CLIENTS.threads.secret,
      grant_type: 'authorization_code',
      redirect_uri: REDIRECT,
      code,
    });
    expect(long.path).toBe('/threads/graph/access_token');
    expect(long.query).toMatchObject({ grant_type: 'th_exchange_token', client_secret: FAKE_CLIENTS.threads.secret });
    expect(fake.requestsTo('threads', 'profile')[0].query).toMatchObject({
      fields: 'id,username',
      access_token: profile.tokens.accessToken,
    });
  });

  it('a forged code is refused with Meta’s message', async () => {
    const error = await failure(threads.exchangeCode({ code: 'forged', redirectUri: REDIRECT, codeVerifier: null }));
    expect(error.kind).toBe('rejected');
    expect(error.message).toContain('Invalid verification code format');
    expect(error.message).not.toContain(FAKE_CLIENTS.threads.secret);
  });

  it('validate: ≤ 500 characters, the link included', () => {
    expect(threads.validate(post('a'.repeat(500)))).toEqual([]);
    expect(threads.validate(post('a'.repeat(501)))).toEqual([
      expect.stringContaining('500 characters of text; this has 501'),
    ]);
    expect(threads.validate(post('a'.repeat(490), { link: 'https://a.example/long' }))).toHaveLength(1);
  });

  it('text: a TEXT container then threads_publish (no polling), then the permalink', async () => {
    const published = await threads.publish(account, post('Hello', { link: 'https://shop.example.com' }));
    expect(fake.requestsTo('threads').map((request) => request.operation)).toEqual([
      'container',
      'publish',
      'permalink',
    ]);
    const [container, publish] = fake.requestsTo('threads').filter((request) => request.method === 'POST');
    expect(container.path).toBe(`/threads/graph/v1.0/${FAKE_ACCOUNTS.threads.id}/threads`);
    expect(container.body).toEqual({
      media_type: 'TEXT',
      text: 'Hello\nhttps://shop.example.com',
      access_token: account.accessToken,
    });
    expect(publish.path).toBe(`/threads/graph/v1.0/${FAKE_ACCOUNTS.threads.id}/threads_publish`);
    expect(fake.posts[0]).toMatchObject({ platform: 'threads', text: 'Hello\nhttps://shop.example.com' });
    expect(published).toEqual({
      id: fake.posts[0].id,
      url: expect.stringContaining('https://www.threads.net/@fake_threads_user/post/'),
    });
  });

  it('an image: IMAGE container, polled until FINISHED, then published', async () => {
    await threads.publish(account, post('Look', { media: [{ type: 'image', url: 'https://cdn.example.com/a.jpg' }] }));
    expect(fake.requestsTo('threads').map((request) => request.operation)).toEqual([
      'container',
      'status',
      'status',
      'publish',
      'permalink',
    ]);
    expect(fake.requestsTo('threads', 'container')[0].body).toMatchObject({
      media_type: 'IMAGE',
      image_url: 'https://cdn.example.com/a.jpg',
      text: 'Look',
    });
  });

  it(
    'expired token (401, code 190) → auth_expired; th_refresh_token ' +
      'gives one that publishes; revoked → reauthorize',
    async () => {
      const own = await connect();
      fake.expireAccessTokens('threads');
      expect((await failure(threads.publish(own, post('x')))).kind).toBe('auth_expired');
      const tokens = await threads.refresh(own);
      const refresh = fake.requestsTo('threads', 'token').at(-1)!;
      expect(refresh.path).toBe('/threads/graph/refresh_access_token');
      expect(refresh.query).toEqual({ grant_type: 'th_refresh_token', access_token: own.accessToken });
      await threads.publish({ ...own, ...tokens }, post('again'));
      expect(fake.posts).toHaveLength(1);
      fake.expireAccessTokens('threads', { revokeRefreshTokens: true });
      expect((await failure(threads.refresh({ ...own, ...tokens }))).kind).toBe('reauthorize');
      account = await connect();
    },
  );

  it('500 on publish → transient; 400 → rejected; a delay past the timeout on publish → unknown_outcome', async () => {
    fake.enqueue('threads', 'publish', { kind: 'status', status: 500 });
    expect((await failure(threads.publish(account, post('a')))).kind).toBe('transient');
    fake.enqueue('threads', 'container', {
      kind: 'status',
      status: 400,
      body: { error: { message: 'Param text must be at most 500 characters long.', code: 100 } },
    });
    expect(await failure(threads.publish(account, post('a')))).toMatchObject({
      kind: 'rejected',
      message: 'Threads: Param text must be at most 500 characters long.',
    });
    fake.enqueue('threads', 'publish', { kind: 'delay', ms: 1500, then: { kind: 'default' } });
    expect((await failure(threads.publish(account, post('a')))).kind).toBe('unknown_outcome');
    expect(fake.posts).toHaveLength(0);
  });
});
