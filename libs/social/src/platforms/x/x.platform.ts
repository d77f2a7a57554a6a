import type { SafeHttpClient } from '@app/core';
import type { SocialConfig } from '../../social.config.js';
import { imagesOf, textLimitProblem, textWithLink, videosOf } from '../content-rules.js';
import { fetchMedia } from '../merchant-media.js';
import { authorizeUrl, renewAccess, requireRefreshToken, tokenAnswer } from '../oauth.js';
import { PlatformHttp, type PlatformFailure } from '../platform-http.js';
import { optionalText, readSettings, urlSetting, type SettingsOf, type SettingsSpec } from '../platform-settings.js';
import { DEFAULT_POLLING, pollUntil, type PollingOptions } from '../polling.js';
import {
  definePlatform,
  PlatformError,
  type AccountCredentials,
  type AuthorizeParams,
  type ConnectedProfile,
  type ExchangeParams,
  type PostContent,
  type PublishedPost,
  type SocialPlatform,
  type SocialPlatformDefinition,
  type TokenSet,
} from '../social-platform.js';

const SCOPES = ['tweet.read', 'tweet.write', 'users.read', 'media.write', 'offline.access'];
const MAX_IMAGES = 4;
/** Its settings, read from the environment (docs/platforms.md lists them). */
export const X_SETTINGS = {
  X_CLIENT_ID: optionalText(
    'X OAuth 2.0 app (PKCE). Without a secret the app is a public client; with one, token requests use HTTP Basic.',
  ),
  X_CLIENT_SECRET: optionalText("The X app's client secret."),
  X_AUTHORIZE_URL: urlSetting('https://x.com/i/oauth2/authorize', "X's consent page."),
  X_API_URL: urlSetting('https://api.x.com', "X's API."),
} satisfies SettingsSpec;

/** X's own limit for images. */
const IMAGE_MAX_BYTES = 5 * 1024 * 1024;
/** Our cap for a video held in memory while it is uploaded (X allows 512 MB). */
const VIDEO_MAX_BYTES = 256 * 1024 * 1024;
/** Bytes per APPEND of a chunked video upload. */
const VIDEO_SEGMENT_BYTES = 4 * 1024 * 1024;

/** X errors: `{title, detail, type}` (v2 problems), `{errors: [{message}]}`, or OAuth `{error, error_description}`. */
export function xFailure(body: any, status: number): PlatformFailure | null {
  if (status >= 200 && status < 300) return null;
  if (!body || typeof body !== 'object') return {};
  if (typeof body.error === 'string') return { code: body.error, message: body.error_description ?? body.error };
  const first = Array.isArray(body.errors) ? body.errors[0] : undefined;
  const message = body.detail ?? first?.detail ?? first?.message ?? body.title;
  const code = typeof body.type === 'string' ? body.type.split('/').pop() : (body.title ?? first?.code);
  return {
    message: typeof message === 'string' ? message : undefined,
    code: code === undefined ? undefined : String(code),
  };
}

/** X in the platform registry (platforms/registry.ts). */
export const X: SocialPlatformDefinition<'x'> = definePlatform({
  id: 'x',
  displayName: 'X',
  textLimit: 280,
  textCount: 'weighted',
  settings: X_SETTINGS,
  usesPkce: true,
  media: 'up to 4 images or one video',
  notes:
    'Images (≤ 5 MiB) and videos (≤ 256 MiB) are uploaded by this service, fetched through ' +
    'the SSRF-guarded client; the link goes on its own line and counts 23. PKCE is required.',
  audience: {
    peakHour: 9,
    topic: (query) => `${query} news and hot takes`,
    advice: (query) =>
      `On X, keep posts about ${query} short, lead with one clear point and reply to conversations early in the day.`,
    hashtag: 'trending',
  },
  live: (config, http) => new XPlatform(config, http),
});

/**
 * X (API v2): OAuth 2.0 with PKCE (required, S256); a confidential client (secret set) authenticates
 * the token requests with HTTP Basic, a public one sends its client_id. Refresh tokens rotate.
 *
 * Publishing: images are uploaded first (`POST /2/media/upload`, base64 JSON), a video through the
 * chunked upload (initialize, append, finalize, then its processing status); then
 * `POST /2/tweets {text, media: {media_ids}}`. A link is appended to the text on its own line and
 * counts 23 weighted characters. At most 4 images, or 1 video.
 */
export class XPlatform implements SocialPlatform {
  readonly id = X.id;
  readonly displayName = X.displayName;
  readonly usesPkce = X.usesPkce;
  private readonly api: PlatformHttp;
  private readonly settings: SettingsOf<typeof X_SETTINGS>;

  constructor(
    private readonly config: SocialConfig,
    private readonly http: SafeHttpClient,
    private readonly polling: PollingOptions = DEFAULT_POLLING,
  ) {
    this.api = new PlatformHttp('x', this.displayName, config.SOCIAL_HTTP_TIMEOUT_MS, xFailure);
    this.settings = readSettings(X_SETTINGS, config);
  }

  get configured(): boolean {
    return Boolean(this.settings.X_CLIENT_ID);
  }

  authorizeUrl({ state, redirectUri, codeChallenge }: AuthorizeParams): string {
    // PKCE is required by X: the challenge parameters are always sent.
    return authorizeUrl(this.settings.X_AUTHORIZE_URL, {
      response_type: 'code',
      client_id: this.settings.X_CLIENT_ID ?? '',
      redirect_uri: redirectUri,
      scope: SCOPES.join(' '),
      state,
      code_challenge: codeChallenge ?? '',
      code_challenge_method: 'S256',
    });
  }

  async exchangeCode({ code, redirectUri, codeVerifier }: ExchangeParams): Promise<ConnectedProfile> {
    const tokens = await this.token(
      { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: codeVerifier ?? '' },
      [],
    );
    const me = await this.api.call(this.url('/2/users/me'), {
      bearer: tokens.accessToken,
      secrets: [tokens.accessToken],
    });
    const user = me.body?.data;
    if (!user?.id) throw new PlatformError('X did not say which account connected', 'rejected', 'x_no_profile');
    return {
      accountId: String(user.id),
      username: String(user.username ?? user.id),
      displayName: user.name ?? null,
      tokens,
    };
  }

  async refresh(account: AccountCredentials): Promise<TokenSet> {
    const refreshToken = requireRefreshToken(account, 'X gave no refresh token; connect the account again');
    return renewAccess(this.displayName, () =>
      this.token({ grant_type: 'refresh_token', refresh_token: refreshToken }, [refreshToken, account.accessToken]),
    );
  }

  validate(content: PostContent): string[] {
    const problems = textLimitProblem(X, textWithLink(content));
    const images = imagesOf(content).length;
    const videos = videosOf(content).length;
    if (videos > 1 || (videos === 1 && images > 0))
      problems.push('X takes at most 1 video, and not together with images');
    else if (images > MAX_IMAGES) problems.push(`X takes at most ${MAX_IMAGES} images; this has ${images}`);
    if (!textWithLink(content) && content.media.length === 0) problems.push('X needs text or media');
    return problems;
  }

  async publish(account: AccountCredentials, content: PostContent): Promise<PublishedPost> {
    const mediaIds: string[] = [];
    for (const item of content.media) {
      mediaIds.push(
        item.type === 'image' ? await this.uploadImage(account, item.url) : await this.uploadVideo(account, item.url),
      );
    }
    const text = textWithLink(content);
    const created = await this.api.call(this.url('/2/tweets'), {
      method: 'POST',
      bearer: account.accessToken,
      json: { ...(text ? { text } : {}), ...(mediaIds.length ? { media: { media_ids: mediaIds } } : {}) },
      secrets: [account.accessToken],
    });
    const id = created.body?.data?.id;
    if (!id)
      throw new PlatformError('X accepted the post but did not return its id', 'unknown_outcome', 'unknown_outcome');
    return { id: String(id), url: `https://x.com/i/web/status/${id}` };
  }

  private async token(form: Record<string, string>, secrets: string[]): Promise<TokenSet> {
    const clientId = this.settings.X_CLIENT_ID ?? '';
    const secret = this.settings.X_CLIENT_SECRET;
    const answer = await this.api.call(this.url('/2/oauth2/token'), {
      method: 'POST',
      form: secret ? form : { ...form, client_id: clientId },
      basic: secret ? { id: clientId, secret } : undefined,
      secrets: [...secrets, secret, form.code, form.code_verifier],
    });
    return tokenAnswer(answer.body, { issuer: 'X', platform: 'x', scopes: SCOPES });
  }

  private async uploadImage(account: AccountCredentials, url: string): Promise<string> {
    const file = await fetchMedia(this.http, url, this.mediaLimits(IMAGE_MAX_BYTES, 'image/jpeg'));
    const answer = await this.api.call(this.url('/2/media/upload'), {
      method: 'POST',
      bearer: account.accessToken,
      json: { media: file.bytes.toString('base64'), media_category: 'tweet_image', media_type: file.contentType },
      harmless: true,
      secrets: [account.accessToken],
    });
    return this.mediaId(answer.body);
  }

  private async uploadVideo(account: AccountCredentials, url: string): Promise<string> {
    const file = await fetchMedia(this.http, url, this.mediaLimits(VIDEO_MAX_BYTES, 'video/mp4'));
    const auth = { bearer: account.accessToken, harmless: true, secrets: [account.accessToken] };
    const started = await this.api.call(this.url('/2/media/upload/initialize'), {
      ...auth,
      method: 'POST',
      json: { media_type: file.contentType, total_bytes: file.bytes.length, media_category: 'tweet_video' },
    });
    const id = this.mediaId(started.body);
    for (let index = 0, offset = 0; offset < file.bytes.length; index++, offset += VIDEO_SEGMENT_BYTES) {
      const segment = file.bytes.subarray(offset, offset + VIDEO_SEGMENT_BYTES);
      await this.api.call(this.url(`/2/media/upload/${encodeURIComponent(id)}/append`), {
        ...auth,
        method: 'POST',
        json: { media: segment.toString('base64'), segment_index: index },
      });
    }
    const finished = await this.api.call(this.url(`/2/media/upload/${encodeURIComponent(id)}/finalize`), {
      ...auth,
      method: 'POST',
    });
    let state: string | undefined = finished.body?.data?.processing_info?.state;
    if (!state || state === 'succeeded') return id;
    // Videos are processed before they can be posted: wait for it, a bounded number of times.
    const done = await pollUntil(this.polling, async () => {
      const status = await this.api.call(this.url('/2/media/upload'), {
        ...auth,
        query: { command: 'STATUS', media_id: id },
      });
      const info = status.body?.data?.processing_info;
      state = info?.state;
      if (state === 'failed') {
        throw new PlatformError(
          `X could not process the video: ${info?.error?.message ?? 'processing failed'}`,
          'rejected',
          'x_media_processing_failed',
        );
      }
      return !state || state === 'succeeded' ? true : undefined;
    });
    if (!done)
      throw new PlatformError('X is still processing the video; try again later', 'transient', 'media_processing');
    return id;
  }

  private mediaId(body: any): string {
    const id = body?.data?.id ?? body?.media_id_string;
    if (!id) throw new PlatformError('X did not return a media id', 'transient', 'platform_unavailable');
    return String(id);
  }

  private mediaLimits(maxBytes: number, fallbackType: string) {
    return {
      maxBytes,
      fallbackType,
      timeoutMs: Math.max(this.config.SOCIAL_HTTP_TIMEOUT_MS, 60_000),
      platform: this.displayName,
    };
  }

  private url(path: string): string {
    return `${this.settings.X_API_URL.replace(/\/+$/, '')}${path}`;
  }
}
