import { createHash, randomBytes } from 'node:crypto';
import { SafeHttpClient } from '@app/core';
import {
  PlatformError,
  type AccountCredentials,
  type SocialPlatform,
} from '../../libs/social/src/platforms/social-platform.js';
import { socialConfig, type SocialConfig } from '../../libs/social/src/social.config.js';
import { FakePlatformServer } from '../fakes/platform-server.js';

/**
 * What the platform specs (`libs/social/src/platforms/*.platform.spec.ts`) share: a platform
 * pointed at the fake platform APIs (test/fakes/platform-server.ts), an account connected through
 * the fake's consent page, and the classified error of a failing call.
 */

/** The connect callback the specs send as `redirect_uri`. */
export const REDIRECT = 'http://localhost:3000/functions/v1/social-connect/callback';

/** Polling short enough for a spec: 4 status requests within about 50 ms. */
export const FAST_POLLING = { attempts: 4, firstDelayMs: 10, maxDelayMs: 20 };

/** A PKCE verifier and its S256 challenge. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/**
 * Runs the fake platform APIs for the tests of the calling `describe`: started before them (then
 * `setup` is called with it: the platform under test, an account), reset before each test (no
 * requests, posts or scripted answers left over) and closed after them.
 */
export function useFakePlatforms(setup: (fake: FakePlatformServer) => Promise<void> | void): void {
  let fake: FakePlatformServer | undefined;
  beforeAll(async () => {
    fake = await FakePlatformServer.start();
    await setup(fake);
  });
  beforeEach(() => fake!.reset());
  afterAll(async () => {
    await fake?.close();
  });
}

/** The social settings of a live platform whose APIs are the fake's, with a 500 ms HTTP timeout. */
export function fakePlatformConfig(fake: FakePlatformServer): SocialConfig {
  return socialConfig.from({ ...process.env, ...fake.env(), SOCIAL_HTTP_TIMEOUT_MS: '500' });
}

/** A client that may download media from a local test server (127.0.0.1, plain http). */
export function localMediaClient(): SafeHttpClient {
  return new SafeHttpClient({ allowPrivate: true, allowHttp: true });
}

/**
 * Connects an account as the connect service does: the authorize URL (with a PKCE challenge when
 * the platform uses PKCE), the fake's consent, the code exchange. The stored credentials.
 */
export async function connectAccount(fake: FakePlatformServer, platform: SocialPlatform): Promise<AccountCredentials> {
  const { verifier, challenge } = platform.usesPkce ? pkce() : { verifier: null, challenge: null };
  const { code } = await fake.consent(
    platform.authorizeUrl({ state: 's', redirectUri: REDIRECT, codeChallenge: challenge }),
  );
  const profile = await platform.exchangeCode({ code, redirectUri: REDIRECT, codeVerifier: verifier });
  return { accountId: profile.accountId, username: profile.username, ...profile.tokens };
}

/** The `PlatformError` a call fails with (the spec fails when it succeeds or throws anything else). */
export async function failure(promise: Promise<unknown>): Promise<PlatformError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}
