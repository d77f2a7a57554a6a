import type { SocialPlatformId } from '../platforms/registry.js';
import type { PostContent } from '../platforms/social-platform.js';
import type { PostStatus } from '../social.dto.js';
import type { PostResultRow, ResultStatus, SocialPostRow } from '../social.repository.js';

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

/** One platform's item in `social-publish` answers. */
export interface PublishResultView {
  platform: SocialPlatformId;
  status: ResultStatus | 'scheduled';
  /** Platform-prefixed (`x_1790…`) once published; the scheduled post's id while scheduled; null otherwise. */
  post_id: string | null;
  url: string | null;
  scheduled_at?: string;
  error?: { code: string; message: string };
}

export interface SocialPostView {
  id: string;
  store_id: string;
  platforms: SocialPlatformId[];
  content: PostContent;
  status: PostStatus;
  scheduled_at: string | null;
  attempts: number;
  created_at: string;
  finished_at: string | null;
  cancelled_at: string | null;
  results: {
    platform: SocialPlatformId;
    status: ResultStatus;
    post_id: string | null;
    url: string | null;
    error: { code: string; message: string } | null;
    published_at: string | null;
  }[];
}

export function toResultView(result: PostResultRow): PublishResultView {
  const view: PublishResultView = { platform: result.platform, status: result.status, post_id: result.platform_post_id, url: result.url };
  if (result.status === 'failed')
    view.error = { code: result.error_code ?? 'failed', message: result.error_message ?? 'Publishing failed' };
  return view;
}

export function toPostView(post: SocialPostRow, results: PostResultRow[]): SocialPostView {
  return {
    id: post.id,
    store_id: post.store_id,
    platforms: post.platforms,
    content: post.content,
    status: post.status,
    scheduled_at: iso(post.scheduled_at),
    attempts: post.attempts,
    created_at: iso(post.created_at)!,
    finished_at: iso(post.finished_at),
    cancelled_at: iso(post.cancelled_at),
    results: results
      .filter((result) => result.post_id === post.id)
      .map((result) => ({
        platform: result.platform,
        status: result.status,
        post_id: result.platform_post_id,
        url: result.url,
        error: result.error_code ? { code: result.error_code, message: result.error_message ?? '' } : null,
        published_at: iso(result.published_at),
      })),
  };
}

/** A finished post's status from its results. */
export function finalStatus(results: PostResultRow[]): 'published' | 'partially_published' | 'failed' {
  const published = results.filter((result) => result.status === 'published').length;
  if (published === results.length) return 'published';
  return published > 0 ? 'partially_published' : 'failed';
}
