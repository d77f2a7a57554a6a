import type { SafeHttpClient } from '@app/core';
import type { SocialConfig } from '../../social.config.js';
import { firstLine, textLimitProblem, textWithLink, videosOf } from '../content-rules.js';
import { fetchMedia } from '../merchant-media.js';
import { authorizeUrl, renewAccess, requireRefreshToken, tokenAnswer } from '../oauth.js';
import { PlatformHttp, type PlatformFailure } from '../platform-http.js';
import { optionalText, readSettings, urlSetting, type SettingsOf, type SettingsSpec } from '../platform-settings.js';
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

const SCOPES = ['https://www.googleapis.com/auth/youtube.upload', 'https://www.googleapis.com/auth/youtube.readonly'];
/** Its settings, read from the environment (docs/platforms.md lists them). */
export const YOUTUBE_SETTINGS = {
  YOUTUBE_CLIENT_ID: optionalText('Google OAuth client with the YouTube Data API enabled.'),
  YOUTUBE_CLIENT_SECRET: optionalText("The Google OAuth client's secret."),
  YOUTUBE_AUTHORIZE_URL: urlSetting('https://accounts.google.com/o/oauth2/v2/auth', "Google's consent page."),
  YOUTUBE_TOKEN_URL: urlSetting('https://oauth2.googleapis.com/token', "Google's token endpoint."),
  YOUTUBE_API_URL: urlSetting('https://www.googleapis.com', "Google's API."),
} satisfies SettingsSpec;

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

/** YouTube in the platform registry (platforms/registry.ts). */
export const YOUTUBE: SocialPlatformDefinition<'youtube'> = definePlatform({
  id: 'youtube',
  displayName: 'YouTube',
  textLimit: 5_000,
  textCount: 'codePoints',
  settings: YOUTUBE_SETTINGS,
  usesPkce: true,
  media: 'exactly one video',
  notes:
    'The video is uploaded by this service (≤ 256 MiB); its title is the ' +
    "text's first line (≤ 100 characters), the text its description with " +
    'the link on its own line. An unaudited app can only publish privately.',
  audience: {
    peakHour: 17,
    topic: (query) => `${query} tutorials and reviews`,
    advice: (query) => `On YouTube, publish a how-to or review of ${query} with a descriptive title and chapters.`,
    hashtag: 'howto',
  },
  live: (config, http) => new YouTubePlatform(config, http),
});

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
  readonly id = YOUTUBE.id;
  readonly displayName = YOUTUBE.displayName;
  readonly usesPkce = YOUTUBE.usesPkce;
  private readonly api: PlatformHttp;
  private readonly settings: SettingsOf<typeof YOUTUBE_SETTINGS>;

  constructor(
    private readonly config: SocialConfig,
    private readonly http: SafeHttpClient,
  ) {
    this.api = new PlatformHttp('youtube', this.displayName, config.SOCIAL_HTTP_TIMEOUT_MS, googleFailure);
    this.settings = readSettings(YOUTUBE_SETTINGS, config);
  }

  get configured(): boolean {
    return Boolean(this.settings.YOUTUBE_CLIENT_ID && this.settings.YOUTUBE_CLIENT_SECRET);
  }

  authorizeUrl({ state, redirectUri, codeChallenge }: AuthorizeParams): string {
    return authorizeUrl(
      this.settings.YOUTUBE_AUTHORIZE_URL,
      {
        client_id: this.settings.YOUTUBE_CLIENT_ID ?? '',
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
    if (!channel?.id)
      throw new PlatformError('YouTube: this Google account has no channel', 'rejected', 'youtube_no_channel');
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
    const problems = textLimitProblem(YOUTUBE, textWithLink(content), 'description');
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
    if (!location)
      throw new PlatformError('YouTube did not open an upload session', 'transient', 'platform_unavailable');
    const uploaded = await this.api.call(location, {
      method: 'PUT',
      bytes: file.bytes,
      contentType: file.contentType,
      bearer: account.accessToken,
      timeoutMs: this.config.SOCIAL_HTTP_TIMEOUT_MS + Math.ceil(file.bytes.length / 1048576) * UPLOAD_MS_PER_MIB,
      secrets,
    });
    const id = uploaded.body?.id;
    if (!id)
      throw new PlatformError(
        'YouTube accepted the upload but did not return the video id',
        'unknown_outcome',
        'unknown_outcome',
      );
    return { id: String(id), url: `https://www.youtube.com/watch?v=${encodeURIComponent(String(id))}` };
  }

  private async token(
    form: Record<string, string | undefined>,
    refreshToken: string | null,
    secrets: (string | null)[],
  ): Promise<TokenSet> {
    const secret = this.settings.YOUTUBE_CLIENT_SECRET;
    const answer = await this.api.call(this.settings.YOUTUBE_TOKEN_URL, {
      method: 'POST',
      form: { client_id: this.settings.YOUTUBE_CLIENT_ID, client_secret: secret, ...form },
      secrets: [...secrets, secret, refreshToken, form.code],
    });
    // Google does not rotate refresh tokens: a refresh answer usually has none, so the old one stays.
    return tokenAnswer(answer.body, {
      issuer: 'Google',
      platform: 'youtube',
      scopes: SCOPES,
      keptRefreshToken: refreshToken,
    });
  }

  private url(path: string): string {
    return `${this.settings.YOUTUBE_API_URL.replace(/\/+$/, '')}${path}`;
  }
}
