import { httpConfig, SafeHttpClient } from '@app/core';
import { FakePlatformServer } from '../../../../test/fakes/platform-server.js';
import { pkce } from '../../../../test/support/platform-fixture.js';
import { buildPlatformRegistry, SOCIAL_PLATFORMS } from './registry.js';
import { SandboxPlatform, sandboxCode, sandboxCodeMatches } from './sandbox.platform.js';
import { PlatformError } from './social-platform.js';
import { socialConfig } from '../social.config.js';
import { XPlatform } from './x/x.platform.js';

const BASE = 'https://api.shop.example';
const REDIRECT = `${BASE}/functions/v1/social-connect/callback`;
const TEST_HTTP = httpConfig.from({ NODE_ENV: 'test' });

describe('sandbox codes', () => {
  it('bind the PKCE challenge: only the matching verifier passes', () => {
    const { verifier, challenge } = pkce();
    const code = sandboxCode(challenge);
    expect(code).toMatch(/^sandbox_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(sandboxCodeMatches(code, verifier)).toBe(true);
    expect(sandboxCodeMatches(code, pkce().verifier)).toBe(false);
    expect(sandboxCodeMatches(code, null)).toBe(false);
  });

  it('without PKCE: a code issued without a challenge passes with no verifier, and is random', () => {
    const code = sandboxCode(null);
    expect(sandboxCodeMatches(code, null)).toBe(true);
    expect(sandboxCodeMatches(code, 'anything')).toBe(false);
    expect(sandboxCode(null)).not.toBe(code);
    expect(sandboxCodeMatches('forged', null)).toBe(false);
    expect(sandboxCodeMatches(`${code}x`, null)).toBe(false);
  });
});

describe('SandboxPlatform', () => {
  const http = new SafeHttpClient({ allowPrivate: false, allowHttp: false });
  const x = new SandboxPlatform(
    new XPlatform(socialConfig.from({ NODE_ENV: 'test' }), http),
    httpConfig.from({ PUBLIC_BASE_URL: BASE }).baseUrl,
  );
  afterAll(() => http.close());

  it('takes the live platform’s identity and rules', () => {
    expect(x).toMatchObject({ id: 'x', displayName: 'X', usesPkce: true, configured: true });
    expect(x.validate({ text: 'a'.repeat(281), media: [], link: null })).toEqual([
      expect.stringContaining('280 weighted characters'),
    ]);
    expect(x.validate({ text: 'a'.repeat(280), media: [], link: null })).toEqual([]);
  });

  it('authorize URL: the sandbox consent page on this service, with the challenge', () => {
    const url = new URL(x.authorizeUrl({ state: 'st', redirectUri: REDIRECT, codeChallenge: 'chal' }));
    expect(`${url.origin}${url.pathname}`).toBe(`${BASE}/functions/v1/social-sandbox/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      platform: 'x',
      state: 'st',
      redirect_uri: REDIRECT,
      code_challenge: 'chal',
      code_challenge_method: 'S256',
    });
  });

  it('exchanges a consent-page code with the right verifier; a stable sandbox account with 2-hour tokens', async () => {
    const { verifier, challenge } = pkce();
    const profile = await x.exchangeCode({
      code: sandboxCode(challenge),
      redirectUri: REDIRECT,
      codeVerifier: verifier,
    });
    expect(profile.accountId).toMatch(/^sandbox-x-[0-9a-f]{12}$/);
    expect(profile.username).toBe('sandbox_x_user');
    expect(profile.tokens.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 7190_000);
    expect(profile.tokens.expiresAt!.getTime()).toBeLessThanOrEqual(Date.now() + 7200_000);
    const again = await x.exchangeCode({ code: sandboxCode(challenge), redirectUri: REDIRECT, codeVerifier: verifier });
    expect(again.accountId).toBe(profile.accountId);
    expect(again.tokens.accessToken).not.toBe(profile.tokens.accessToken);
    const error = await x
      .exchangeCode({ code: sandboxCode(challenge), redirectUri: REDIRECT, codeVerifier: pkce().verifier })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ kind: 'rejected', code: 'invalid_grant' });
  });

  it('publishes without network: digits for id, a sandbox URL on this service; refresh gives new tokens', async () => {
    const account = {
      accountId: 'sandbox-x-1',
      username: 'sandbox_x_user',
      accessToken: 'a',
      refreshToken: 'r',
      expiresAt: null,
    };
    const published = await x.publish(account, { text: 'hi', media: [], link: null });
    expect(published.id).toMatch(/^[1-9]\d{18}$/);
    expect(published.url).toBe(`${BASE}/functions/v1/social-sandbox/posts/x/${published.id}`);
    expect((await x.publish(account, { text: 'hi', media: [], link: null })).id).not.toBe(published.id);
    const tokens = await x.refresh(account);
    expect(tokens.accessToken).not.toBe('a');
    expect(tokens.refreshToken).not.toBe('r');
  });
});

describe('buildPlatformRegistry', () => {
  const http = new SafeHttpClient({ allowPrivate: true, allowHttp: true });
  afterAll(() => http.close());

  it('sandbox (the default): six sandbox platforms, configured, with the live rules', () => {
    const registry = buildPlatformRegistry(socialConfig.from({ NODE_ENV: 'test' }), TEST_HTTP, http);
    expect([...registry.keys()].sort()).toEqual([...SOCIAL_PLATFORMS].sort());
    for (const [id, platform] of registry) {
      expect(platform).toBeInstanceOf(SandboxPlatform);
      expect(platform.id).toBe(id);
      expect(platform.configured).toBe(true);
    }
    expect(registry.get('instagram')!.validate({ text: 'hi', media: [], link: null })).toEqual([
      'Instagram needs an image or a video',
    ]);
    expect(registry.get('tiktok')!.validate({ text: 'hi', media: [], link: null })).toEqual([
      'TikTok needs a video or images',
    ]);
    expect(registry.get('youtube')!.validate({ text: 'hi', media: [], link: null })).toEqual([
      'YouTube needs exactly one video',
    ]);
    expect(registry.get('x')!.usesPkce).toBe(true);
    expect(registry.get('facebook')!.usesPkce).toBe(false);
  });

  it('live: the platform classes, configured only with their credentials', async () => {
    const fake = await FakePlatformServer.start();
    try {
      const live = buildPlatformRegistry(socialConfig.from({ NODE_ENV: 'test', ...fake.env() }), TEST_HTTP, http);
      expect(live.get('x')).toBeInstanceOf(XPlatform);
      expect([...live.values()].every((platform) => platform.configured)).toBe(true);
      const bare = buildPlatformRegistry(socialConfig.from({ NODE_ENV: 'test', SOCIAL_MODE: 'live' }), TEST_HTTP, http);
      expect([...bare.values()].map((platform) => platform.configured)).toEqual([
        false,
        false,
        false,
        false,
        false,
        false,
      ]);
      expect(bare.get('x')!.authorizeUrl({ state: 's', redirectUri: REDIRECT, codeChallenge: 'c' })).toMatch(
        /^https:\/\/x\.com\/i\/oauth2\/authorize\?/,
      );
    } finally {
      await fake.close();
    }
  });
});
