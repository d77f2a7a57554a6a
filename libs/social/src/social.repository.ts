import { Injectable } from '@nestjs/common';
import { type Cursor, queryRows, ScopedDb, SystemDb, TenantDb } from '@app/core';
import type { SocialPlatformId } from './platforms/registry.js';
import type { PostContent } from './platforms/social-platform.js';
import type { PostStatus } from './social.dto.js';

export interface SocialPostRow {
  id: string;
  store_id: string;
  platforms: SocialPlatformId[];
  content: PostContent;
  status: PostStatus;
  scheduled_at: Date | null;
  attempts: number;
  finished_at: Date | null;
  cancelled_at: Date | null;
  created_at: Date;
}

export type ResultStatus = 'pending' | 'published' | 'failed' | 'cancelled';

export interface PostResultRow {
  post_id: string;
  platform: SocialPlatformId;
  status: ResultStatus;
  platform_post_id: string | null;
  url: string | null;
  error_code: string | null;
  error_message: string | null;
  published_at: Date | null;
}

/**
 * The SQL of scheduled and published posts (the accounts' is SocialAccountRepository's). Runs in the
 * request's transaction (row-level security) where there is one, else in the system's context (the
 * publishing worker), scoped by id.
 */
@Injectable()
export class SocialRepository {
  constructor(
    private readonly db: TenantDb,
    private readonly system: SystemDb,
    private readonly scoped: ScopedDb,
  ) {}

  /** A new post with its pending results; its author is the bound caller, a user or a store key (checked by policy). */
  async insertPost(
    storeId: string,
    platforms: SocialPlatformId[],
    content: PostContent,
    status: 'scheduled' | 'publishing',
    scheduledAt: Date | null,
  ): Promise<SocialPostRow> {
    const [post] = await queryRows<SocialPostRow>(
      this.db.tx,
      `INSERT INTO social_posts (store_id, created_by, api_key_id, platforms, content, status, scheduled_at, attempts,
                                 publishing_started_at)
       VALUES ($1, (SELECT app_user_id()), (SELECT app_api_key_id()), $2, $3, $4, $5,
               CASE WHEN $4 = 'publishing' THEN 1 ELSE 0 END, CASE WHEN $4 = 'publishing' THEN now() END)
       RETURNING *`,
      [storeId, platforms, JSON.stringify(content), status, scheduledAt],
    );
    await queryRows(
      this.db.tx,
      `INSERT INTO social_post_results (post_id, store_id, ` +
        `platform, status) SELECT $1, $2, unnest($3::text[]), 'pending'`,
      [post.id, storeId, platforms],
    );
    return post;
  }

  async findPost(id: string): Promise<SocialPostRow | null> {
    return (await queryRows<SocialPostRow>(this.db.tx, `SELECT * FROM social_posts WHERE id = $1`, [id]))[0] ?? null;
  }

  /**
   * The claim that makes a scheduled post publish once: `scheduled` → `publishing`. A cancel that got
   * there first leaves nothing to claim. The time is not checked again: the delayed job is the
   * schedule (a timer that fires a few milliseconds early, or a clock a little ahead of the
   * database's, must not drop the post).
   */
  async claimScheduled(id: string): Promise<SocialPostRow | null> {
    const rows = await queryRows<SocialPostRow>(
      this.system.tx,
      `UPDATE social_posts SET status = 'publishing', attempts = attempts + 1, publishing_started_at = now(),
        updated_at = now()
        WHERE id = $1 AND status = 'scheduled'
        RETURNING *`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** `scheduled` → `cancelled`, with its pending results; null when the post was not scheduled (any more). */
  async cancel(id: string): Promise<SocialPostRow | null> {
    const rows = await queryRows<SocialPostRow>(
      this.db.tx,
      `UPDATE social_posts SET status = 'cancelled', cancelled_at = now(), finished_at = now(), updated_at = now()
        WHERE id = $1 AND status = 'scheduled' RETURNING *`,
      [id],
    );
    if (rows[0])
      await queryRows(
        this.db.tx,
        `UPDATE social_post_results SET status = 'cancelled', ` +
          `updated_at = now() WHERE post_id = $1 AND status = 'pending'`,
        [id],
      );
    return rows[0] ?? null;
  }

  /** Back to `scheduled` for another attempt at `at` (the pending results only). */
  async reschedule(id: string, at: Date): Promise<void> {
    await queryRows(
      this.system.tx,
      `UPDATE social_posts SET status = 'scheduled', scheduled_at = ` +
        `$2, updated_at = now() WHERE id = $1 AND status = 'publishing'`,
      [id, at],
    );
  }

  async finish(id: string, status: 'published' | 'partially_published' | 'failed'): Promise<void> {
    await queryRows(
      this.scoped.tx,
      `UPDATE social_posts SET status = $2, finished_at = now(), updated_at = now() WHERE id = $1`,
      [id, status],
    );
  }

  results(postIds: string[]): Promise<PostResultRow[]> {
    return queryRows<PostResultRow>(
      this.scoped.tx,
      `SELECT * FROM social_post_results WHERE post_id = ANY($1::uuid[]) ORDER BY platform`,
      [postIds],
    );
  }

  async recordPublished(
    postId: string,
    platform: SocialPlatformId,
    platformPostId: string,
    url: string,
  ): Promise<void> {
    await queryRows(
      this.scoped.tx,
      `UPDATE social_post_results SET status = 'published', platform_post_id = $3, url = $4, error_code = NULL,
        error_message = NULL,
              published_at = now(), updated_at = now()
        WHERE post_id = $1 AND platform = $2`,
      [postId, platform, platformPostId, url],
    );
  }

  async recordFailed(postId: string, platform: SocialPlatformId, code: string, message: string): Promise<void> {
    await queryRows(
      this.scoped.tx,
      `UPDATE social_post_results SET status = 'failed', error_code = $3, error_message = $4, updated_at = now()
        WHERE post_id = $1 AND platform = $2`,
      [postId, platform, code, message],
    );
  }

  /** Keeps the last transient error on a result that stays pending for another attempt. */
  async recordRetry(postId: string, platform: SocialPlatformId, code: string, message: string): Promise<void> {
    await queryRows(
      this.scoped.tx,
      `UPDATE social_post_results SET error_code = $3, error_message ` +
        `= $4, updated_at = now() WHERE post_id = $1 AND platform = $2`,
      [postId, platform, code, message],
    );
  }

  pageOfStore(
    storeId: string,
    status: PostStatus | undefined,
    limit: number,
    after: Cursor | null,
  ): Promise<SocialPostRow[]> {
    return queryRows<SocialPostRow>(
      this.db.tx,
      `SELECT * FROM social_posts
        WHERE store_id = $1 AND ($2::text IS NULL OR status = $2)
          AND ($3::timestamptz IS NULL OR (created_at, id) < ($3::timestamptz, $4::uuid))
        ORDER BY created_at DESC, id DESC LIMIT $5`,
      [storeId, status ?? null, after?.createdAt ?? null, after?.id ?? null, limit + 1],
    );
  }

  /** Scheduled posts due for a while whose job was lost (Redis flushed, a crash), to enqueue again. */
  overdue(graceMs: number): Promise<{ id: string; attempts: number }[]> {
    return queryRows<{ id: string; attempts: number }>(
      this.system.tx,
      `SELECT id, attempts FROM social_posts WHERE status = 'scheduled'
        AND scheduled_at < now() - make_interval(secs => $1::double precision / 1000)
        ORDER BY scheduled_at LIMIT 100`,
      [graceMs],
    );
  }

  /** Posts left `publishing` by a worker that died mid-way: their outcome on the platform is unknown. */
  async failInterrupted(staleMs: number): Promise<{ id: string; store_id: string }[]> {
    // One statement: a post and its results are closed together, never seen half-closed.
    return queryRows<{ id: string; store_id: string }>(
      this.system.tx,
      `WITH closed AS (
         UPDATE social_posts SET status = CASE WHEN EXISTS (SELECT 1 FROM social_post_results r
           WHERE r.post_id = social_posts.id AND r.status = 'published')
                                          THEN 'partially_published' ELSE 'failed' END,
                finished_at = now(), updated_at = now()
          WHERE status = 'publishing' AND publishing_started_at < now() -
            make_interval(secs => $1::double precision / 1000)
          RETURNING id, store_id
       ), results AS (
         UPDATE social_post_results SET status = 'failed', error_code = 'interrupted',
                error_message = 'Publishing was interrupted; check the account before posting again', updated_at = now()
          WHERE post_id IN (SELECT id FROM closed) AND status = 'pending'
       )
       SELECT id, store_id FROM closed`,
      [staleMs],
    );
  }
}
