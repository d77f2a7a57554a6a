import { Inject, Injectable, Logger } from '@nestjs/common';
import { AccountTokens } from '../accounts/account-tokens.js';
import type { SocialPlatformId } from '../platforms/registry.js';
import {
  PlatformError,
  SOCIAL_PLATFORMS_REGISTRY,
  type AccountCredentials,
  type PostContent,
  type PublishedPost,
  type SocialPlatformRegistry,
} from '../platforms/social-platform.js';
import { SocialAccountRepository, type SocialAccountRow } from '../accounts/social-account.repository.js';
import { SocialRepository, type SocialPostRow } from '../social.repository.js';

/** What one run over a post's pending platforms came to. */
export interface PublishRun {
  /** Platforms that failed for a reason worth another attempt (429, 5xx), still pending. */
  retry: SocialPlatformId[];
  /** The longest wait a platform asked for (Retry-After), in ms. */
  retryAfterMs: number;
}

type Outcome =
  | { kind: 'published'; post: PublishedPost }
  | { kind: 'retry'; code: string; message: string; retryAfterMs: number }
  | { kind: 'failed'; code: string; message: string };

/**
 * Publishes a claimed post (status `publishing`) to each of its pending platforms, in parallel,
 * and records one result per platform. An expired token is refreshed and the publish tried once
 * more; a platform whose outcome is unknown (timeout after sending) is never retried, since
 * publishing is not idempotent on any platform.
 */
@Injectable()
export class PostPublisher {
  private readonly logger = new Logger(PostPublisher.name);

  constructor(
    private readonly repository: SocialRepository,
    private readonly accountsRepository: SocialAccountRepository,
    private readonly tokens: AccountTokens,
    @Inject(SOCIAL_PLATFORMS_REGISTRY) private readonly platforms: SocialPlatformRegistry,
  ) {}

  /** `retryTransient`: keep 429/5xx platforms pending for another attempt (scheduled posts) instead of failing them. */
  async run(post: SocialPostRow, retryTransient: boolean): Promise<PublishRun> {
    const pending = (await this.repository.results([post.id])).filter((result) => result.status === 'pending');
    const accounts = new Map(
      (await this.accountsRepository.accountsOfStore(post.store_id)).map((account) => [account.platform, account]),
    );
    const run: PublishRun = { retry: [], retryAfterMs: 0 };
    await Promise.all(
      pending.map(async ({ platform }) => {
        const outcome = await this.publishTo(platform, accounts.get(platform), post.content);
        if (outcome.kind === 'published') {
          await this.repository.recordPublished(post.id, platform, `${platform}_${outcome.post.id}`, outcome.post.url);
        } else if (outcome.kind === 'retry' && retryTransient) {
          await this.repository.recordRetry(post.id, platform, outcome.code, outcome.message);
          run.retry.push(platform);
          run.retryAfterMs = Math.max(run.retryAfterMs, outcome.retryAfterMs);
        } else {
          await this.repository.recordFailed(post.id, platform, outcome.code, outcome.message);
        }
      }),
    );
    return run;
  }

  private async publishTo(
    platformId: SocialPlatformId,
    account: SocialAccountRow | undefined,
    content: PostContent,
  ): Promise<Outcome> {
    const platform = this.platforms.get(platformId)!;
    if (!account)
      return {
        kind: 'failed',
        code: 'not_connected',
        message: `No ${platform.displayName} account is connected to this store`,
      };
    if (account.status === 'reauthorize') {
      return {
        kind: 'failed',
        code: 'reauthorize_required',
        message: `Connect the ${platform.displayName} account again: access was revoked`,
      };
    }
    try {
      let credentials: AccountCredentials = this.tokens.open(account);
      if (this.tokens.expiresSoon(account)) credentials = await this.tokens.refresh(account.id, credentials);
      try {
        return { kind: 'published', post: await platform.publish(credentials, content) };
      } catch (error) {
        if (!(error instanceof PlatformError) || error.kind !== 'auth_expired') throw error;
        // Expired or revoked token: renew it and try once more.
        credentials = await this.tokens.refresh(account.id, credentials);
        return { kind: 'published', post: await platform.publish(credentials, content) };
      }
    } catch (error) {
      return this.classify(platformId, error);
    }
  }

  private classify(platform: SocialPlatformId, error: unknown): Outcome {
    if (!(error instanceof PlatformError)) {
      this.logger.error({ platform, err: error }, 'publishing failed unexpectedly');
      return { kind: 'failed', code: 'internal', message: 'Publishing failed unexpectedly' };
    }
    this.logger.warn(
      { platform, kind: error.kind, code: error.code, err: { message: error.message } },
      'platform refused a post',
    );
    switch (error.kind) {
      case 'rate_limited':
      case 'transient':
        return { kind: 'retry', code: error.code, message: error.message, retryAfterMs: error.retryAfterMs ?? 0 };
      case 'unknown_outcome':
        return {
          kind: 'failed',
          code: error.code,
          message: `${error.message}. It may have been published: check the account before posting again`,
        };
      case 'auth_expired':
        return {
          kind: 'failed',
          code: 'reauthorize_required',
          message: 'The platform still refused access after renewing it; connect the account again',
        };
      default:
        return { kind: 'failed', code: error.code, message: error.message };
    }
  }
}
