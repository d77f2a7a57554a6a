import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import type { Job } from 'bull';
import { jobDrainMs, PeriodicTask, QueueWorker, runtimeConfig, type RuntimeConfig, SystemDb } from '@app/core';
import { NotificationRepository } from '@app/notifications';
import { SocialRepository, type SocialPostRow } from '../social.repository.js';
import { PostPublisher } from './post-publisher.js';
import { PostQueue, type PostJob } from './post-queue.js';
import { finalStatus } from './social-post.js';
import { socialConfig, type SocialConfig } from '../social.config.js';

/**
 * Publishes scheduled posts when their Bull delayed job fires (worker processes). The claim
 * (`scheduled` → `publishing`) runs first, so a post cancelled before it is never published and a
 * duplicate job finds nothing to do. 429/5xx platforms stay pending and are tried again after
 * SOCIAL_RETRY_DELAYS_MS (or the platform's Retry-After, if longer); after the last attempt, or
 * when any platform failed for good, the merchant gets a notification.
 */
@Injectable()
export class ScheduledPostWorker implements OnApplicationBootstrap, OnModuleDestroy, BeforeApplicationShutdown {
  private readonly logger = new Logger(ScheduledPostWorker.name);
  private readonly sweeper = new PeriodicTask('scheduled post sweep', () => this.sweep(), this.logger);
  private readonly jobs: QueueWorker<PostJob>;

  constructor(
    private readonly system: SystemDb,
    private readonly queue: PostQueue,
    private readonly repository: SocialRepository,
    private readonly publisher: PostPublisher,
    private readonly notifications: NotificationRepository,
    @Inject(socialConfig.KEY) private readonly config: SocialConfig,
    @Inject(runtimeConfig.KEY) private readonly runtime: RuntimeConfig,
  ) {
    this.jobs = new QueueWorker(queue.queue, this.logger);
  }

  onApplicationBootstrap(): void {
    if (this.runtime.APP_ROLE === 'api') return;
    this.jobs.start(4, (job: Job<PostJob>) =>
      // A job never fails silently: the post stays scheduled and the sweep enqueues it again.
      this.publish(job.data.postId).catch((error: Error) =>
        this.logger.error(
          { err: { message: error.message }, post_id: job.data.postId },
          'scheduled post could not be published',
        ),
      ),
    );
    this.sweeper.start(this.runtime.JOB_SWEEP_INTERVAL_MS);
  }

  /**
   * First step of a shutdown: no new post; the running ones get to finish. One still running at the
   * end is handed back, and its new run finds the post `publishing` and leaves it to the interrupted sweep.
   */
  onModuleDestroy(): void {
    void this.jobs.stop(jobDrainMs(this.runtime.SHUTDOWN_TIMEOUT_MS));
  }

  /** Before the connections close: the sweep and the running posts are done. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.sweeper.stop();
    await this.jobs.stop(jobDrainMs(this.runtime.SHUTDOWN_TIMEOUT_MS));
  }

  /** One attempt at a scheduled post; nothing when it is not (or no longer) scheduled. */
  async publish(postId: string): Promise<void> {
    await this.system.run(async () => {
      const post = await this.repository.claimScheduled(postId);
      if (!post) return;
      const maxAttempts = this.config.SOCIAL_RETRY_DELAYS_MS.length + 1;
      const run = await this.publisher.run(post, post.attempts < maxAttempts);
      if (run.retry.length) {
        const delay = Math.max(this.config.SOCIAL_RETRY_DELAYS_MS[post.attempts - 1], run.retryAfterMs);
        const at = new Date(Date.now() + delay);
        await this.repository.reschedule(post.id, at);
        await this.queue.enqueue(post.id, post.attempts + 1, at);
        return;
      }
      await this.finish(post);
    });
  }

  /**
   * Enqueues scheduled posts LOST_JOB_AFTER_MS overdue (their job was lost: Redis flushed, crash);
   * closes posts a dead worker left `publishing` for SOCIAL_INTERRUPTED_AFTER_MS, never publishing them again.
   */
  async sweep(): Promise<{ requeued: number; interrupted: number }> {
    return this.system.run(async () => {
      const overdue = await this.repository.overdue(this.runtime.LOST_JOB_AFTER_MS);
      for (const post of overdue) {
        await this.queue.enqueue(post.id, post.attempts + 1, new Date());
      }
      const interrupted = await this.repository.failInterrupted(this.config.SOCIAL_INTERRUPTED_AFTER_MS);
      for (const post of interrupted) {
        await this.notifications.add(
          post.store_id,
          'social_post_failed',
          'A scheduled post was interrupted while publishing',
          {
            post_id: post.id,
          },
        );
      }
      return { requeued: overdue.length, interrupted: interrupted.length };
    });
  }

  private async finish(post: SocialPostRow): Promise<void> {
    const results = await this.repository.results([post.id]);
    const status = finalStatus(results);
    await this.repository.finish(post.id, status);
    if (status === 'published') return;
    const failed = results.filter((result) => result.status === 'failed');
    await this.notifications.add(
      post.store_id,
      'social_post_failed',
      `A scheduled post could not be published to ${failed.map((result) => result.platform).join(', ')}`,
      {
        post_id: post.id,
        failed: failed.map((result) => ({
          platform: result.platform,
          code: result.error_code,
          message: result.error_message,
        })),
      },
    );
  }
}
