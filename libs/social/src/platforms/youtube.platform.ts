import type { AppConfig, SafeHttpClient } from '@app/core';
import { firstLine, textLimitProblem, textWithLink, videosOf } from './content-rules.js';
import { fetchMedia } from './merchant-media.js';
import { authorizeUrl, renewAccess, requireRefreshToken, tokenAnswer } from './oauth.js';
import { PlatformHttp, type PlatformFailure } from './platform-http.js';
import {
  PlatformError,
  type AccountCredentials,
  type AuthorizeParams,
  type ConnectedProfile,
  type ExchangeParams,
  type PostContent,
  type PublishedPost,
  type SocialPlatform,
  type TokenSet,
} from './social-platform.js';

const SCOPES = ['https://www.googleapis.com/auth/youtube.upload', 'https://www.googleapis.com/auth/youtube.readonly'];
/** Our cap for a video held in memory while it is uploaded (YouTube itself takes up to 256 GB). */
export const YOUTUBE_VIDEO_MAX_BYTES = 256 * 1024 * 1024;
const TITLE_MAX = 100;
/** Extra time the upload gets per MiB, on top of SOCIAL_HTTP_TIMEOUT_MS (about 1 MiB/s at worst). */
const UPLOAD_MS_PER_MIB = 1000;
const RATE_REASONS = new Set(['rateLimitExceeded', 'userRateLimitExceeded', 'quotaExceeded', 'dailyLimitExceeded']);

/** Google errors: `{error: {code, message, errors: [{reason}]}}`, or OAuth `{error, error_description}`. */
export function googleFailure(body: any, status: number): PlatformFailure | null {
  if (status >= 200 && status < 300) return null;
  const error = body?.error;
  if (typeof error === 'string') return { code: error, message: body.error_description ?? error };
  if (!error || typeof error !== 'object') return {};
  const reason = Array.isArray(error.errors) ? error.errors[0]?.reason : undefined;
  return {
    message: error.message,
    code: reason ?? error.status,
    kind: status === 403 && RATE_REASONS.has(reason) ? 'rate_limited' : undefined,
  };
}

/**
 * YouTube (Data API v3) through Google OAuth: offline access with consent (so a refresh token is
 * issued), PKCE S256. The account is the user's channel.
 *
 * Publishing uploads exactly one video: its bytes are downloaded from the merchant's URL (through
 * the SSRF guard, at most 256 MiB, held in memory), then a resumable upload session is opened
 * with the title (the text's first line, at most 100 characters) and description (the text and
 * link, at most 5000), and the bytes are PUT to it. Unaudited API projects can only upload private
 * videos: YouTube's answer is reported as it is.
 */
export class YouTubePlatform implements SocialPlatform {
  readonly id = 'youtube' as const;
  readonly displayName = 'YouTube';
  readonly usesPkce = true;
  private readonly api: PlatformHttp;

  constructor(
    private readonly config: AppConfig,
    private readonly http: SafeHttpClient,
  ) {
    this.api = new PlatformHttp('youtube', this.displayName, config.SOCIAL_HTTP_TIMEOUT_MS, googleFailure);
  }

  get configured(): boolean {
    return Boolean(this.config.YOUTUBE_CLIENT_ID && this.config.YOUTUBE_CLIENT_SECRET);
  }

  authorizeUrl({ state, redirectUri, codeChallenge }: AuthorizeParams): string {
    return authorizeUrl(
      this.config.YOUTUBE_AUTHORIZE_URL,
      {
        client_id: this.config.YOUTUBE_CLIENT_ID ?? '',
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: SCOPES.join(' '),
        access_type: 'offline',
        prompt: 'consent',
        include_granted_scopes: 'true',
        state,
      },
      codeChallenge,
    );
  }

  async exchangeCode({ code, redirectUri, codeVerifier }: ExchangeParams): Promise<ConnectedProfile> {
    const tokens = await this.token(
      { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: codeVerifier ?? undefined },
      null,
      [code, codeVerifier],
    );
    const answer = await this.api.call(this.url('/youtube/v3/channels'), {
      query: { part: 'snippet', mine: 'true' },
      bearer: tokens.accessToken,
      secrets: [tokens.accessToken],
    });
    const channel = Array.isArray(answer.body?.items) ? answer.body.items[0] : undefined;
    if (!channel?.id) throw new PlatformError('YouTube: this Google account has no channel', 'rejected', 'youtube_no_channel');
    const title = typeof channel.snippet?.title === 'string' ? channel.snippet.title : null;
    const username = String(channel.snippet?.customUrl ?? title ?? channel.id);
    return { accountId: String(channel.id), username, displayName: title, tokens };
  }

  async refresh(account: AccountCredentials): Promise<TokenSet> {
    const refreshToken = requireRefreshToken(account, 'YouTube: connect the channel again');
    return renewAccess(this.displayName, () =>
      this.token({ grant_type: 'refresh_token', refresh_token: refreshToken }, refreshToken, [account.accessToken]),
    );
  }

  validate(content: PostContent): string[] {
    const problems = textLimitProblem('youtube', 'YouTube', textWithLink(content), 'description');
    const videos = videosOf(content).length;
    if (videos !== 1 || content.media.length !== 1)
      problems.push(`YouTube needs exactly one video${content.media.length ? ' and no other media' : ''}`);
    if (/[<>]/.test(textWithLink(content))) problems.push('YouTube does not allow < or > in titles and descriptions');
    return problems;
  }

  async publish(account: AccountCredentials, content: PostContent): Promise<PublishedPost> {
    const video = videosOf(content)[0];
    if (!video) throw new PlatformError('YouTube needs a video', 'rejected', 'youtube_video_required');
    const file = await fetchMedia(this.http, video.url, {
      maxBytes: YOUTUBE_VIDEO_MAX_BYTES,
      fallbackType: 'video/mp4',
      timeoutMs: Math.max(this.config.SOCIAL_HTTP_TIMEOUT_MS, 120_000),
      platform: this.displayName,
    });
    const description = textWithLink(content);
    const secrets = [account.accessToken];
    const session = await this.api.call(this.url('/upload/youtube/v3/videos'), {
      method: 'POST',
      query: { uploadType: 'resumable', part: 'snippet,status' },
      bearer: account.accessToken,
      headers: { 'x-upload-content-length': String(file.bytes.length), 'x-upload-content-type': file.contentType },
      json: {
        snippet: { title: firstLine(description, TITLE_MAX) || 'Video', description },
        status: { privacyStatus: 'public' },
      },
      harmless: true,
      secrets,
    });
    const location = session.headers.get('location');
    if (!location) throw new PlatformError('YouTube did not open an upload session', 'transient', 'platform_unavailable');
    const uploaded = await this.api.call(location, {
      method: 'PUT',
      bytes: file.bytes,
      contentType: file.contentType,
      bearer: account.accessToken,
      timeoutMs: this.config.SOCIAL_HTTP_TIMEOUT_MS + Math.ceil(file.bytes.length / 1048576) * UPLOAD_MS_PER_MIB,
      secrets,
    });
    const id = uploaded.body?.id;
    if (!id) throw new PlatformError('YouTube accepted the upload but did not return the video id', 'unknown_outcome', 'unknown_outcome');
    return { id: String(id), url: `https://www.youtube.com/watch?v=${encodeURIComponent(String(id))}` };
  }

  private async token(
    form: Record<string, string | undefined>,
    refreshToken: string | null,
    secrets: (string | null)[],
  ): Promise<TokenSet> {
    const secret = this.config.YOUTUBE_CLIENT_SECRET;
    const answer = await this.api.call(this.config.YOUTUBE_TOKEN_URL, {
      method: 'POST',
      form: { client_id: this.config.YOUTUBE_CLIENT_ID, client_secret: secret, ...form },
      secrets: [...secrets, secret, refreshToken, form.code],
    });
    // Google does not rotate refresh tokens: a refresh answer usually has none, so the old one stays.
    return tokenAnswer(answer.body, { issuer: 'Google', platform: 'youtube', scopes: SCOPES, keptRefreshToken: refreshToken });
  }

  private url(path: string): string {
    return `${this.config.YOUTUBE_API_URL.replace(/\/+$/, '')}${path}`;
  }
}
