import { createHash, randomBytes } from 'node:crypto';
import type { SafeHttpClient } from '@app/core';
import { ImageServer } from '../../../../../test/fakes/image-server.js';
import { FAKE_ACCOUNTS, FAKE_CLIENTS, type FakePlatformServer } from '../../../../../test/fakes/platform-server.js';
import {
  connectAccount,
  failure,
  fakePlatformConfig,
  localMediaClient,
  pkce,
  REDIRECT,
  useFakePlatforms,
} from '../../../../../test/support/platform-fixture.js';
import type { AccountCredentials, PostContent } from '../social-platform.js';
import { YouTubePlatform } from './youtube.platform.js';

describe('YouTubePlatform (against the fake Google APIs)', () => {
  let fake: FakePlatformServer;
  let media: ImageServer;
  let http: SafeHttpClient;
  let youtube: YouTubePlatform;
  let account: AccountCredentials;
  const clip = randomBytes(4096);
  let post: (text: string, extra?: Partial<PostContent>) => PostContent;

  const connect = () => connectAccount(fake, youtube);

  useFakePlatforms(async (started) => {
    fake = started;
    media = await new ImageServer({ '/clip.mp4': { headers: { 'content-type': 'video/mp4' }, body: clip } }).start();
    post = (text, extra = {}) => ({
      text,
      media: [{ type: 'video', url: `${media.url}/clip.mp4` }],
      link: null,
      ...extra,
    });
    http = localMediaClient();
    youtube = new YouTubePlatform(fakePlatformConfig(fake), http);
    account = await connect();
  });
  afterAll(async () => {
    await http?.close();
    await media?.stop();
  });

  it('authorize URL: offline access with consent, the upload and readonly scopes, S256', () => {
    const url = new URL(youtube.authorizeUrl({ state: 'st', redirectUri: REDIRECT, codeChallenge: 'chal' }));
    expect(`${url.origin}${url.pathname}`).toBe(`${fake.url}/youtube-auth/o/oauth2/v2/auth`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: FAKE_CLIENTS.youtube.id,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'https://www.googleapis.com/auth/youtube.upload https://www.googleapis.com/auth/youtube.readonly',
      access_type: 'offline',
      prompt: 'consent',
      include_granted_scopes: 'true',
      state: 'st',
      code_challenge: 'chal',
      code_challenge_method: 'S256',
    });
  });

  it('code exchange with the verifier; the account is the channel', async () => {
    const { verifier, challenge } = pkce();
    const { code } = await fake.consent(
      youtube.authorizeUrl({ state: 's', redirectUri: REDIRECT, codeChallenge: challenge }),
    );
    const profile = await youtube.exchangeCode({ code, redirectUri: REDIRECT, codeVerifier: verifier });
    expect(profile).toMatchObject({
      accountId: FAKE_ACCOUNTS.youtube.id,
      username: FAKE_ACCOUNTS.youtube.customUrl,
      displayName: FAKE_ACCOUNTS.youtube.title,
    });
    const [token] = fake.requestsTo('youtube', 'token');
    expect(token.body).toMatchObject({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: FAKE_CLIENTS.youtube.id,
    });
    expect(createHash('sha256').update(token.body.code_verifier).digest('base64url')).toBe(challenge);
    const [channels] = fake.requestsTo('youtube', 'profile');
    expect(channels.path).toBe('/youtube/youtube/v3/channels');
    expect(channels.query).toEqual({ part: 'snippet', mine: 'true' });
  });

  it('validate: exactly one video; description ≤ 5000', () => {
    expect(youtube.validate(post('hi'))).toEqual([]);
    expect(youtube.validate(post('hi', { media: [] }))).toEqual(['YouTube needs exactly one video']);
    expect(youtube.validate(post('hi', { media: [{ type: 'image', url: 'https://a.example/a.jpg' }] }))).toHaveLength(
      1,
    );
    expect(youtube.validate(post('a'.repeat(5001)))).toEqual([
      expect.stringContaining('5,000 characters of description'),
    ]);
  });

  it('publishes: resumable session with title and description, then the bytes PUT to its Location', async () => {
    const published = await youtube.publish(
      account,
      post('Our mug in action\nMore below', { link: 'https://shop.example.com' }),
    );
    const [session, upload] = fake.requestsTo('youtube');
    expect(session).toMatchObject({
      method: 'POST',
      operation: 'upload-session',
      path: '/youtube/upload/youtube/v3/videos',
    });
    expect(session.query).toEqual({ uploadType: 'resumable', part: 'snippet,status' });
    expect(session.headers['x-upload-content-length']).toBe(String(clip.length));
    expect(session.headers['x-upload-content-type']).toBe('video/mp4');
    expect(session.body).toEqual({
      snippet: { title: 'Our mug in action', description: 'Our mug in action\nMore below\nhttps://shop.example.com' },
      status: { privacyStatus: 'public' },
    });
    expect(upload).toMatchObject({ method: 'PUT', operation: 'publish' });
    expect(upload.headers['content-length']).toBe(String(clip.length));
    expect(upload.headers.authorization).toBe(`Bearer ${account.accessToken}`);
    expect(fake.posts[0].extra).toMatchObject({ title: 'Our mug in action', bytes: clip.length });
    expect(published).toEqual({ id: fake.posts[0].id, url: `https://www.youtube.com/watch?v=${fake.posts[0].id}` });
  });

  it('a video URL that does not answer is rejected, naming the media; nothing is sent to YouTube', async () => {
    const error = await failure(
      youtube.publish(account, post('x', { media: [{ type: 'video', url: `${media.url}/nope.mp4` }] })),
    );
    expect(error).toMatchObject({ kind: 'rejected', code: 'media_unreachable' });
    expect(error.message).toContain('nope.mp4');
    expect(fake.requestsTo('youtube')).toHaveLength(0);
  });

  it('401 → auth_expired; the refresh keeps the refresh token and the new access token uploads', async () => {
    const own = await connect();
    fake.expireAccessTokens('youtube');
    expect((await failure(youtube.publish(own, post('x')))).kind).toBe('auth_expired');
    const tokens = await youtube.refresh(own);
    expect(tokens.accessToken).not.toBe(own.accessToken);
    expect(tokens.refreshToken).toBe(own.refreshToken);
    await youtube.publish({ ...own, ...tokens }, post('again'));
    expect(fake.posts).toHaveLength(1);
    fake.expireAccessTokens('youtube', { revokeRefreshTokens: true });
    expect((await failure(youtube.refresh(own))).kind).toBe('reauthorize');
    account = await connect();
  });

  it(
    '403 quotaExceeded → rate_limited; 400 → rejected with Google’s ' +
      'message; 503 → transient; a slow PUT → unknown_outcome',
    async () => {
      fake.enqueue('youtube', 'upload-session', {
        kind: 'status',
        status: 403,
        body: {
          error: {
            code: 403,
            message: 'The request cannot be completed because you have exceeded your quota.',
            errors: [{ reason: 'quotaExceeded' }],
          },
        },
      });
      expect((await failure(youtube.publish(account, post('a')))).kind).toBe('rate_limited');
      fake.enqueue('youtube', 'upload-session', {
        kind: 'status',
        status: 400,
        body: {
          error: {
            code: 400,
            message: 'The request metadata specifies an invalid video title.',
            errors: [{ reason: 'invalidTitle' }],
          },
        },
      });
      expect(await failure(youtube.publish(account, post('a')))).toMatchObject({
        kind: 'rejected',
        code: 'youtube_invalidtitle',
        message: 'YouTube: The request metadata specifies an invalid video title.',
      });
      fake.enqueue('youtube', 'publish', { kind: 'status', status: 503 });
      expect((await failure(youtube.publish(account, post('a')))).kind).toBe('transient');
      fake.enqueue('youtube', 'publish', { kind: 'delay', ms: 3000, then: { kind: 'default' } });
      expect((await failure(youtube.publish(account, post('a')))).kind).toBe('unknown_outcome');
    },
  );
});
