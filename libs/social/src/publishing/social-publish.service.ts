import { Inject, Injectable } from '@nestjs/common';
import { ApiError, decodeCursor, toPage, type FieldError, type Page, isoTimestamp } from '@app/core';
import type { SocialPlatformId } from '../platforms/registry.js';
import {
  SOCIAL_PLATFORMS_REGISTRY,
  type PostContent,
  type SocialPlatformRegistry,
} from '../platforms/social-platform.js';
import type { SocialPostsQueryDto, SocialPublishDto } from '../social.dto.js';
import { SocialAccountRepository } from '../accounts/social-account.repository.js';
import { SocialRepository } from '../social.repository.js';
import { PostPublisher } from './post-publisher.js';
import { PostQueue } from './post-queue.js';
import { finalStatus, toPostView, toResultView, type SocialPostView, type SocialPublishAnswer } from './social-post.js';

/** How far ahead a post may be scheduled. */
const MAX_SCHEDULE_AHEAD_MS = 366 * 24 * 3600_000;

/**
 * Publish now, schedule, cancel and history. Every requested platform is checked first
 * (connected, the platform's own rules); one problem anywhere is a 400 listing them all, and nothing
 * is sent.
 */
@Injectable()
export class SocialPublishService {
  constructor(
    private readonly repository: SocialRepository,
    private readonly accountsRepository: SocialAccountRepository,
    private readonly publisher: PostPublisher,
    private readonly queue: PostQueue,
    @Inject(SOCIAL_PLATFORMS_REGISTRY) private readonly platforms: SocialPlatformRegistry,
  ) {}

  /** Publishes or schedules `body`'s post; the database records the bound caller (user or store key) as its author. */
  async publish(body: SocialPublishDto): Promise<SocialPublishAnswer> {
    const content: PostContent = {
      text: body.content.text,
      media: (body.content.media ?? []).map((item) => ({ type: item.type, url: item.url })),
      link: body.content.link ?? null,
    };
    const scheduleAt = this.scheduleTime(body.schedule_at);
    await this.validate(body.store_id, body.platforms, content);

    if (scheduleAt) {
      const post = await this.repository.insertPost(body.store_id, body.platforms, content, 'scheduled', scheduleAt);
      await this.queue.enqueue(post.id, 1, scheduleAt);
      return {
        success: true,
        results: body.platforms.map((platform) => ({
          platform,
          status: 'scheduled',
          post_id: post.id,
          url: null,
          scheduled_at: isoTimestamp(scheduleAt),
        })),
      };
    }

    const post = await this.repository.insertPost(body.store_id, body.platforms, content, 'publishing', null);
    await this.publisher.run(post, false);
    const results = await this.repository.results([post.id]);
    const status = finalStatus(results);
    await this.repository.finish(post.id, status);
    // In the order asked for.
    const byPlatform = new Map(results.map((result) => [result.platform, toResultView(result)]));
    return { success: status === 'published', results: body.platforms.map((platform) => byPlatform.get(platform)!) };
  }

  async cancel(postId: string): Promise<void> {
    const post = await this.repository.findPost(postId);
    if (!post) throw ApiError.notFound('Scheduled post');
    const cancelled = await this.repository.cancel(postId);
    if (!cancelled) {
      const now = await this.repository.findPost(postId);
      throw new ApiError(
        409,
        'NOT_CANCELLABLE',
        `Only a scheduled post can be cancelled; this one is ${now?.status ?? post.status}`,
      );
    }
    await this.queue.remove(postId, cancelled.attempts + 1);
  }

  async list(query: SocialPostsQueryDto): Promise<Page<SocialPostView>> {
    const rows = await this.repository.pageOfStore(
      query.store_id,
      query.status,
      query.limit,
      decodeCursor(query.cursor),
    );
    const results = await this.repository.results(rows.map((row) => row.id));
    return toPage(rows, query.limit, (row) => toPostView(row, results));
  }

  private scheduleTime(value: string | null | undefined): Date | null {
    if (value === null || value === undefined) return null;
    const at = new Date(value);
    if (at.getTime() <= Date.now()) {
      throw ApiError.validation([
        { field: 'schedule_at', message: 'schedule_at must be in the future (leave it out to publish now)' },
      ]);
    }
    if (at.getTime() > Date.now() + MAX_SCHEDULE_AHEAD_MS) {
      throw ApiError.validation([{ field: 'schedule_at', message: 'schedule_at must be at most a year ahead' }]);
    }
    return at;
  }

  /**
   * The cheap checks first: every platform connected (one query); then each platform's rules on the
   * content (media, then its text count, linear in the text). A platform not connected answers 400
   * naming each one before the content is looked at: nothing could be sent anyway.
   */
  private async validate(storeId: string, platforms: SocialPlatformId[], content: PostContent): Promise<void> {
    const accounts = new Map(
      (await this.accountsRepository.accountsOfStore(storeId)).map((account) => [account.platform, account]),
    );
    const problems: FieldError[] = [];
    for (const id of platforms) {
      const platform = this.platforms.get(id)!;
      const account = accounts.get(id);
      if (!account) {
        problems.push({
          field: 'platforms',
          platform: id,
          message: `${platform.displayName} is not connected to this store`,
        });
      } else if (account.status === 'reauthorize') {
        problems.push({
          field: 'platforms',
          platform: id,
          message: `${platform.displayName} needs to be connected again: access was revoked`,
        });
      }
    }
    if (!problems.length) {
      for (const id of platforms) {
        for (const message of this.platforms.get(id)!.validate(content))
          problems.push({ field: 'content', platform: id, message });
      }
    }
    if (problems.length) throw ApiError.validation(problems, 'The post cannot be published as it is; nothing was sent');
  }
}
