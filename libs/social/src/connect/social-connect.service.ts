import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ApiError, hashToken, httpConfig, randomToken, SecretBox, type HttpConfig } from '@app/core';
import { AccountTokens } from '../accounts/account-tokens.js';
import { toAccountView, type SocialAccountView } from '../accounts/social-account.js';
import type { SocialPlatformId } from '../platforms/registry.js';
import {
  PlatformError,
  SOCIAL_PLATFORMS_REGISTRY,
  type SocialPlatform,
  type SocialPlatformRegistry,
} from '../platforms/social-platform.js';
import { SocialAccountRepository } from '../accounts/social-account.repository.js';

/** How long a connect may take between `social-connect` and the callback. */
export const CONNECT_STATE_TTL_MS = 10 * 60_000;
export const CONNECT_PATH = '/functions/v1/social-connect';
export const START_PATH = `${CONNECT_PATH}/start`;
export const CALLBACK_PATH = `${CONNECT_PATH}/callback`;

/** The cookie that binds a state to the browser that opened its start URL (one per state). */
export interface BrowserCookie {
  name: string;
  value: string;
  maxAgeSeconds: number;
}

/** Where the start URL or the callback sends the browser. */
export interface ConnectOutcome {
  /** Null when the state is unknown or used: there is no trusted place to send the browser. */
  redirectTo: string | null;
  error?: { code: string; message: string };
  /** The start URL's cookie for this state (only on the first open). */
  cookie?: BrowserCookie;
}

/** The name of the cookie of one state: a prefix of its hash, so several connects can run at once in one browser. */
export function browserCookieName(stateHash: string): string {
  return `sf_connect_${stateHash.slice(0, 16)}`;
}

type Query = Record<string, string | undefined>;

/**
 * OAuth connect: a single-use state of 256 bits, bound to store, user, platform and
 * redirect_url, kept 10 minutes as a hash; PKCE S256 where the platform takes it, the verifier
 * sealed beside the state. `auth_url` is this service's start URL: the first browser to open it is
 * bound to the state (a secret in an HttpOnly cookie, its hash beside the state) and sent on to the
 * platform's consent page; the callback takes the state only for that browser, exchanges the code and
 * stores the account's tokens sealed. Neither the start nor the callback has a user: they call the
 * request role's definer functions (libs/social/src/sql/accounts.sql), never the system role.
 */
@Injectable()
export class SocialConnectService {
  private readonly logger = new Logger(SocialConnectService.name);

  constructor(
    @Inject(httpConfig.KEY) private readonly config: HttpConfig,
    private readonly repository: SocialAccountRepository,
    private readonly tokens: AccountTokens,
    private readonly box: SecretBox,
    @Inject(SOCIAL_PLATFORMS_REGISTRY) private readonly platforms: SocialPlatformRegistry,
  ) {}

  get callbackUrl(): string {
    return `${this.config.baseUrl}${CALLBACK_PATH}`;
  }

  async start(
    storeId: string,
    userId: string,
    platformId: SocialPlatformId,
    redirectUrl: string,
  ): Promise<{ auth_url: string; state: string }> {
    if (!this.config.allowsRedirectTo(redirectUrl)) {
      throw ApiError.validation([
        { field: 'redirect_url', message: 'redirect_url must be on an origin listed in ALLOWED_REDIRECT_ORIGINS' },
      ]);
    }
    const platform = this.platform(platformId);
    const state = randomToken(32);
    const verifier = platform.usesPkce ? randomToken(48) : null;
    await this.repository.insertState(hashToken(state).toString('hex'), {
      store_id: storeId,
      user_id: userId,
      platform: platformId,
      redirect_url: redirectUrl,
      code_verifier_sealed: verifier === null ? null : this.box.seal(verifier),
      expires_at: new Date(Date.now() + CONNECT_STATE_TTL_MS),
    });
    return { auth_url: `${this.config.baseUrl}${START_PATH}?${new URLSearchParams({ state }).toString()}`, state };
  }

  /**
   * The start URL, opened by a browser. The first open binds the state to that browser (a cookie
   * with a fresh secret, whose hash is kept with the state) and goes on to the platform's consent
   * page; any later open goes back to `redirect_url` with `status=error&error=already_started`, an
   * expired state with `error=expired_state`. An unknown state yields no redirect (the caller answers 400).
   */
  async open(query: Query): Promise<ConnectOutcome> {
    const state = stateOf(query);
    const browserSecret = randomToken(32);
    const stateHash = state ? hashToken(state).toString('hex') : '';
    const row = state ? await this.repository.startState(stateHash, browserSecret) : null;
    if (!row) return { redirectTo: null, error: { code: 'invalid_state', message: 'Unknown or already used state' } };
    const back = (params: Record<string, string>) =>
      withQuery(row.redirect_url, { platform: row.platform, status: 'error', ...params });
    if (row.outcome === 'already_started') return { redirectTo: back({ error: 'already_started' }) };
    if (row.outcome === 'expired') return { redirectTo: back({ error: 'expired_state' }) };
    const platform = this.platform(row.platform);
    const verifier = row.code_verifier_sealed === null ? null : this.box.open(row.code_verifier_sealed);
    const codeChallenge = verifier === null ? null : createHash('sha256').update(verifier).digest('base64url');
    const left = Math.ceil((new Date(row.expires_at).getTime() - Date.now()) / 1000);
    return {
      redirectTo: platform.authorizeUrl({ state, redirectUri: this.callbackUrl, codeChallenge }),
      cookie: {
        name: browserCookieName(stateHash),
        value: browserSecret,
        maxAgeSeconds: Math.min(Math.max(left, 1), CONNECT_STATE_TTL_MS / 1000),
      },
    };
  }

  /**
   * The platform's redirect back, with the cookies of the browser. The state is spent whatever
   * happens; an unknown one yields no redirect (the caller answers 400); anything else goes back to
   * `redirect_url` with `status=connected&account=` or `status=error&error=<code>`: `browser_mismatch`
   * when this browser is not the one that opened the start URL (nothing is attached), `expired_state`,
   * the platform's error, or the code exchange's.
   */
  async complete(query: Query, cookies: Record<string, string>): Promise<ConnectOutcome> {
    const state = stateOf(query);
    const stateHash = state ? hashToken(state).toString('hex') : '';
    const browserSecret = state ? (cookies[browserCookieName(stateHash)] ?? null) : null;
    const code = !query.error && typeof query.code === 'string' && query.code ? query.code : null;
    // A secret only this call knows: the state, once taken, can be completed with it alone.
    const completion = code === null ? null : randomToken(32);
    const row = state ? await this.repository.takeState(stateHash, browserSecret, completion) : null;
    if (!row) return { redirectTo: null, error: { code: 'invalid_state', message: 'Unknown or already used state' } };
    const back = (params: Record<string, string>) => withQuery(row.redirect_url, { platform: row.platform, ...params });
    if (row.outcome === 'browser_mismatch') return { redirectTo: back({ status: 'error', error: 'browser_mismatch' }) };
    if (row.outcome === 'expired') return { redirectTo: back({ status: 'error', error: 'expired_state' }) };
    if (row.outcome !== 'taken' || code === null || completion === null) {
      const reason = query.error ? String(query.error).slice(0, 100) : 'missing_code';
      return { redirectTo: back({ status: 'error', error: reason }) };
    }
    const platform = this.platform(row.platform);
    try {
      const profile = await platform.exchangeCode({
        code,
        redirectUri: this.callbackUrl,
        codeVerifier: row.code_verifier_sealed === null ? null : this.box.open(row.code_verifier_sealed),
      });
      const accountId = await this.repository.completeConnect(stateHash, completion, {
        platformAccountId: profile.accountId,
        username: profile.username,
        displayName: profile.displayName,
        ...this.tokens.seal(profile.tokens),
        tokens: profile.tokens,
      });
      if (!accountId) return { redirectTo: back({ status: 'error', error: 'expired_state' }) };
      return { redirectTo: back({ status: 'connected', account: accountId }) };
    } catch (error) {
      const code = error instanceof PlatformError ? error.code : 'connect_failed';
      this.logger.warn(
        { platform: row.platform, store_id: row.store_id, err: { message: (error as Error).message } },
        'social connect failed',
      );
      return { redirectTo: back({ status: 'error', error: code }) };
    }
  }

  async accounts(storeId: string): Promise<SocialAccountView[]> {
    return (await this.repository.accountsOfStore(storeId)).map(toAccountView);
  }

  async disconnect(accountId: string): Promise<void> {
    if (!(await this.repository.deleteAccount(accountId))) throw ApiError.notFound('Social account');
  }

  private platform(id: SocialPlatformId): SocialPlatform {
    const platform = this.platforms.get(id)!;
    if (!platform.configured) {
      throw ApiError.notConfigured(
        `${platform.displayName} is not configured on this server (its client id and secret are unset)`,
      );
    }
    return platform;
  }
}

function stateOf(query: Query): string {
  const state = query.state;
  return typeof state === 'string' && state.length > 0 && state.length <= 512 ? state : '';
}

function withQuery(url: string, params: Record<string, string>): string {
  const target = new URL(url);
  for (const [key, value] of Object.entries(params)) target.searchParams.set(key, value);
  return target.toString();
}
