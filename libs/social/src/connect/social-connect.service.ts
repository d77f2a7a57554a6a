import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppConfig, ApiError, hashToken, randomToken, SecretBox } from '@app/core';
import { AccountTokens } from '../accounts/account-tokens.js';
import { toAccountView, type SocialAccountView } from '../accounts/social-account.js';
import type { SocialPlatformId } from '../platform-text.js';
import {
  PlatformError,
  SOCIAL_PLATFORMS_REGISTRY,
  type SocialPlatform,
  type SocialPlatformRegistry,
} from '../platforms/social-platform.js';
import { SocialRepository } from '../social.repository.js';

/** How long a connect may take between `social-connect` and the callback (API.md §4). */
export const CONNECT_STATE_TTL_MS = 10 * 60_000;
export const CALLBACK_PATH = '/functions/v1/social-connect/callback';

/** Where the callback sends the browser: the caller's `redirect_url` with the outcome in its query. */
export interface CallbackOutcome {
  /** Null when the state is unknown or expired: there is no trusted place to send the browser. */
  redirectTo: string | null;
  error?: { code: string; message: string };
}

/**
 * OAuth connect (API.md §4): a single-use state of 256 bits, bound to store, user, platform and
 * redirect_url, kept 10 minutes as a hash; PKCE S256 where the platform takes it, the verifier
 * sealed beside the state; the callback exchanges the code and stores the account's tokens sealed.
 */
@Injectable()
export class SocialConnectService {
  private readonly logger = new Logger(SocialConnectService.name);

  constructor(
    private readonly config: AppConfig,
    private readonly repository: SocialRepository,
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
    const codeChallenge = verifier === null ? null : createHash('sha256').update(verifier).digest('base64url');
    return { auth_url: platform.authorizeUrl({ state, redirectUri: this.callbackUrl, codeChallenge }), state };
  }

  /**
   * The platform's redirect back. The state is spent whatever happens; an unknown one yields no
   * redirect (the caller answers 400); anything else, an expired state included, goes back to
   * `redirect_url` with `status=connected&account=` or `status=error&error=<code>`.
   */
  async complete(query: { state?: string; code?: string; error?: string; error_description?: string }): Promise<CallbackOutcome> {
    const state = typeof query.state === 'string' && query.state.length <= 512 ? query.state : '';
    const row = state ? await this.repository.takeState(hashToken(state).toString('hex')) : null;
    if (!row) return { redirectTo: null, error: { code: 'invalid_state', message: 'Unknown or already used state' } };
    const back = (params: Record<string, string>) => withQuery(row.redirect_url, { platform: row.platform, ...params });
    if (new Date(row.expires_at).getTime() < Date.now()) return { redirectTo: back({ status: 'error', error: 'expired_state' }) };
    if (query.error || !query.code) {
      const reason = query.error ? String(query.error).slice(0, 100) : 'missing_code';
      return { redirectTo: back({ status: 'error', error: reason }) };
    }
    const platform = this.platform(row.platform);
    try {
      const profile = await platform.exchangeCode({
        code: String(query.code),
        redirectUri: this.callbackUrl,
        codeVerifier: row.code_verifier_sealed === null ? null : this.box.open(row.code_verifier_sealed),
      });
      const account = await this.repository.upsertAccount({
        storeId: row.store_id,
        platform: row.platform,
        platformAccountId: profile.accountId,
        username: profile.username,
        displayName: profile.displayName,
        ...this.tokens.seal(profile.tokens),
        tokens: profile.tokens,
        connectedBy: row.user_id,
      });
      return { redirectTo: back({ status: 'connected', account: account.id }) };
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
      throw ApiError.notConfigured(`${platform.displayName} is not configured on this server (its client id and secret are unset)`);
    }
    return platform;
  }
}

function withQuery(url: string, params: Record<string, string>): string {
  const target = new URL(url);
  for (const [key, value] of Object.entries(params)) target.searchParams.set(key, value);
  return target.toString();
}
