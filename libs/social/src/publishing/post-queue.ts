import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bull';

export const SOCIAL_POST_QUEUE = 'social-posts';

export interface PostJob {
  postId: string;
}

/**
 * Bull delayed jobs for scheduled posts: one per post and attempt (jobId `<post>:<attempt>`), so a
 * repeated enqueue of a waiting job is a no-op. Finished jobs are removed, so the sweep can enqueue
 * a lost one again; the worker's claim makes any extra job harmless.
 */
@Injectable()
export class PostQueue {
  constructor(@InjectQueue(SOCIAL_POST_QUEUE) readonly queue: Queue<PostJob>) {}

  async enqueue(postId: string, attempt: number, at: Date): Promise<void> {
    await this.queue.add(
      { postId },
      {
        jobId: `${postId}:${attempt}`,
        delay: Math.max(0, at.getTime() - Date.now()),
        attempts: 1,
        removeOnComplete: true,
        removeOnFail: true,
      },
    );
  }

  /** Drops a cancelled post's waiting job (the claim would skip it anyway). */
  async remove(postId: string, attempt: number): Promise<void> {
    const job = await this.queue.getJob(`${postId}:${attempt}`);
    await job?.remove().catch(() => undefined);
  }
}
