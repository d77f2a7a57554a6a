import { Inject, Injectable } from '@nestjs/common';
import { ScopedDb, SecretBox } from '@app/core';
import {
  PlatformError,
  SOCIAL_PLATFORMS_REGISTRY,
  type AccountCredentials,
  type SocialPlatformRegistry,
  type TokenSet,
} from '../platforms/social-platform.js';
import { SocialAccountRepository, type SocialAccountRow } from './social-account.repository.js';

/** A token this close to its expiry is refreshed before use rather than after a refusal. */
const REFRESH_AHEAD_MS = 60_000;

/**
 * Tokens of connected accounts: sealed at rest (SecretBox, AES-256-GCM), opened only to call the
 * platform, refreshed under a row lock so two publishers never spend one rotating refresh token.
 */
@Injectable()
export class AccountTokens {
  constructor(
    private readonly repository: SocialAccountRepository,
    private readonly box: SecretBox,
    private readonly scoped: ScopedDb,
    @Inject(SOCIAL_PLATFORMS_REGISTRY) private readonly platforms: SocialPlatformRegistry,
  ) {}

  seal(tokens: TokenSet): { accessTokenSealed: string; refreshTokenSealed: string | null } {
    return {
      accessTokenSealed: this.box.seal(tokens.accessToken),
      refreshTokenSealed: tokens.refreshToken === null ? null : this.box.seal(tokens.refreshToken),
    };
  }

  open(account: SocialAccountRow): AccountCredentials {
    return {
      accountId: account.platform_account_id,
      username: account.username,
      accessToken: this.box.open(account.access_token_sealed),
      refreshToken: account.refresh_token_sealed === null ? null : this.box.open(account.refresh_token_sealed),
      expiresAt: account.token_expires_at,
    };
  }

  /** Whether the access token expires within a minute (so it is refreshed first). */
  expiresSoon(account: SocialAccountRow): boolean {
    return (
      account.token_expires_at !== null && new Date(account.token_expires_at).getTime() - Date.now() < REFRESH_AHEAD_MS
    );
  }

  /**
   * Fresh credentials for the account whose `stale` credentials stopped working (or are about to):
   * under the row lock, a token another publisher refreshed meanwhile is used as it is; otherwise
   * the platform refreshes it. A refused refresh marks the account `reauthorize` and throws.
   */
  async refresh(accountId: string, stale: AccountCredentials): Promise<AccountCredentials> {
    let refused: PlatformError | null = null;
    const fresh = await this.scoped.transaction(async () => {
      const account = await this.repository.accountForUpdate(accountId);
      if (!account) throw new PlatformError('The account was disconnected', 'reauthorize', 'account_disconnected');
      const current = this.open(account);
      if (current.accessToken !== stale.accessToken && !this.expiresSoon(account)) return current;
      const platform = this.platforms.get(account.platform)!;
      try {
        const tokens = await platform.refresh(current);
        const sealed = this.seal(tokens);
        await this.repository.saveTokens(
          account.id,
          sealed.accessTokenSealed,
          sealed.refreshTokenSealed,
          tokens.expiresAt,
        );
        return {
          ...current,
          accessToken: tokens.accessToken,
          refreshToken: tokens.refreshToken,
          expiresAt: tokens.expiresAt,
        };
      } catch (error) {
        if (
          error instanceof PlatformError &&
          (error.kind === 'reauthorize' || error.kind === 'rejected' || error.kind === 'auth_expired')
        ) {
          refused = error;
          return null;
        }
        throw error;
      }
    });
    if (fresh) return fresh;
    // After the refresh transaction has ended, so that the row lock is released first.
    await this.repository.markReauthorize(accountId);
    throw new PlatformError(
      'The platform refused to renew access; connect the account again',
      'reauthorize',
      'reauthorize_required',
      {
        cause: refused,
      },
    );
  }
}
