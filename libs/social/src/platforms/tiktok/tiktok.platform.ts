import type { SocialConfig } from '../../social.config.js';
import { firstLine, imagesOf, textLimitProblem, textWithLink, videosOf } from '../content-rules.js';
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

const SCOPES = ['user.info.basic', 'video.publish'];
/** Its settings, read from the environment (docs/platforms.md lists them). */
export const TIKTOK_SETTINGS = {
  TIKTOK_CLIENT_KEY: optionalText('TikTok app (Content Posting API).'),
  TIKTOK_CLIENT_SECRET: optionalText("The TikTok app's client secret."),
  TIKTOK_AUTHORIZE_URL: urlSetting('https://www.tiktok.com/v2/auth/authorize/', "TikTok's consent page."),
  TIKTOK_API_URL: urlSetting('https://open.tiktokapis.com', "TikTok's API."),
} satisfies SettingsSpec;

/** TikTok's photo posts take at most 35 images and a title of 90 characters. */
const MAX_PHOTOS = 35;
const PHOTO_TITLE_MAX = 90;

/** TikTok error codes that are not refusals of the content. */
const KINDS: Record<string, PlatformFailure['kind']> = {
  access_token_invalid: 'auth_expired',
  rate_limit_exceeded: 'rate_limited',
  internal_error: 'transient',
};

/**
 * TikTok answers `{data, error: {code, message, log_id}}`, with `code: "ok"` on success and
 * sometimes an error inside an HTTP 200; its OAuth endpoint answers `{error, error_description}`.
 */
export function tiktokFailure(body: any, status: number): PlatformFailure | null {
  const error = body?.error;
  if (typeof error === 'string')
    return { code: error, message: body.error_description ?? error, kind: status >= 500 ? 'transient' : undefined };
  if (error && typeof error === 'object' && error.code && error.code !== 'ok') {
    return { code: String(error.code), message: error.message || String(error.code), kind: KINDS[error.code] };
  }
  return status >= 200 && status < 300 ? null : {};
}

/** TikTok in the platform registry (platforms/registry.ts). */
export const TIKTOK: SocialPlatformDefinition<'tiktok'> = definePlatform({
  id: 'tiktok',
  displayName: 'TikTok',
  textLimit: 2_200,
  textCount: 'codePoints',
  settings: TIKTOK_SETTINGS,
  usesPkce: true,
  media: 'a video or images, required',
  notes:
    'The first video, else a photo post of the images, which TikTok pulls from their URLs; ' +
    'the link goes on its own line of the caption. An unaudited app can only publish privately.',
  audience: {
    peakHour: 19,
    topic: (query) => `${query} challenges`,
    advice: (query) => `On TikTok, show ${query} in use within the first two seconds of a vertical video.`,
    hashtag: 'fyp',
  },
  live: (config) => new TikTokPlatform(config),
});

/**
 * TikTok (Content Posting API, direct post). OAuth v2 with `client_key`; PKCE S256 with the
 * standard base64url challenge (TikTok's desktop guide describes a hex one; its web guide and
 * token reference require the verifier only for mobile and desktop, so a confidential web client
 * is also authenticated by its secret).
 *
 * Publishing: `creator_info/query` (privacy options and the username), then a video
 * (`video/init`, the first video, pulled from its URL) or a photo post (`content/init`, every
 * image, pulled from their URLs; TikTok requires the URLs' domain to be verified for the app),
 * then `status/fetch` a bounded number of times. Once `init` succeeded the post is TikTok's to
 * finish: still processing after the polls is reported as published, with the publish_id as id
 * and the profile as URL (never sent again).
 */
export class TikTokPlatform implements SocialPlatform {
  readonly id = TIKTOK.id;
  readonly displayName = TIKTOK.displayName;
  readonly usesPkce = TIKTOK.usesPkce;
  private readonly api: PlatformHttp;
  private readonly settings: SettingsOf<typeof TIKTOK_SETTINGS>;

  constructor(
    private readonly config: SocialConfig,
    private readonly polling: PollingOptions = DEFAULT_POLLING,
  ) {
    this.api = new PlatformHttp('tiktok', this.displayName, config.SOCIAL_HTTP_TIMEOUT_MS, tiktokFailure);
    this.settings = readSettings(TIKTOK_SETTINGS, config);
  }

  get configured(): boolean {
    return Boolean(this.settings.TIKTOK_CLIENT_KEY && this.settings.TIKTOK_CLIENT_SECRET);
  }

  authorizeUrl({ state, redirectUri, codeChallenge }: AuthorizeParams): string {
    return authorizeUrl(
      this.settings.TIKTOK_AUTHORIZE_URL,
      {
        client_key: this.settings.TIKTOK_CLIENT_KEY ?? '',
        scope: SCOPES.join(','),
        response_type: 'code',
        redirect_uri: redirectUri,
        state,
      },
      codeChallenge,
    );
  }

  async exchangeCode({ code, redirectUri, codeVerifier }: ExchangeParams): Promise<ConnectedProfile> {
    const tokens = await this.token(
      { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: codeVerifier ?? undefined },
      [code, codeVerifier],
    );
    const secrets = [tokens.accessToken];
    const info = await this.api.call(this.url('/v2/user/info/'), {
      query: { fields: 'open_id,display_name' },
      bearer: tokens.accessToken,
      secrets,
    });
    const user = info.body?.data?.user;
    if (!user?.open_id)
      throw new PlatformError('TikTok did not say which account connected', 'rejected', 'tiktok_no_profile');
    // The username needs user.info.profile on /user/info; creator_info (video.publish) has it too.
    const creator = await this.creatorInfo(tokens.accessToken);
    const displayName = typeof user.display_name === 'string' ? user.display_name : null;
    const username = String(creator.creator_username ?? displayName ?? user.open_id);
    return { accountId: String(user.open_id), username, displayName, tokens };
  }

  async refresh(account: AccountCredentials): Promise<TokenSet> {
    const refreshToken = requireRefreshToken(account, 'TikTok: connect the account again');
    return renewAccess(this.displayName, () =>
      this.token({ grant_type: 'refresh_token', refresh_token: refreshToken }, [refreshToken, account.accessToken]),
    );
  }

  validate(content: PostContent): string[] {
    const problems = textLimitProblem(TIKTOK, textWithLink(content), 'caption');
    const images = imagesOf(content).length;
    if (content.media.length === 0) problems.push('TikTok needs a video or images');
    else if (videosOf(content).length === 0 && images > MAX_PHOTOS)
      problems.push(`TikTok photo posts take at most ${MAX_PHOTOS} images; this has ${images}`);
    return problems;
  }

  async publish(account: AccountCredentials, content: PostContent): Promise<PublishedPost> {
    const creator = await this.creatorInfo(account.accessToken);
    const options: string[] = Array.isArray(creator.privacy_level_options) ? creator.privacy_level_options : [];
    // Public when the creator may post publicly; an unaudited app's refusal is TikTok's to say.
    const privacy = options.includes('PUBLIC_TO_EVERYONE') || options.length === 0 ? 'PUBLIC_TO_EVERYONE' : options[0];
    const caption = textWithLink(content);
    const video = videosOf(content)[0];
    const images = imagesOf(content);
    if (!video && images.length === 0)
      throw new PlatformError('TikTok needs a video or images', 'rejected', 'tiktok_media_required');
    const auth = { method: 'POST' as const, bearer: account.accessToken, secrets: [account.accessToken] };
    const init = video
      ? await this.api.call(this.url('/v2/post/publish/video/init/'), {
          ...auth,
          json: {
            post_info: { title: caption, privacy_level: privacy },
            source_info: { source: 'PULL_FROM_URL', video_url: video.url },
          },
        })
      : await this.api.call(this.url('/v2/post/publish/content/init/'), {
          ...auth,
          json: {
            post_info: { title: firstLine(caption, PHOTO_TITLE_MAX), description: caption, privacy_level: privacy },
            source_info: {
              source: 'PULL_FROM_URL',
              photo_cover_index: 0,
              photo_images: images.map((image) => image.url),
            },
            post_mode: 'DIRECT_POST',
            media_type: 'PHOTO',
          },
        });
    const publishId = init.body?.data?.publish_id;
    if (!publishId)
      throw new PlatformError(
        'TikTok accepted the post but did not return its publish_id',
        'unknown_outcome',
        'unknown_outcome',
      );

    const username = String(creator.creator_username ?? account.username);
    const profile = `https://www.tiktok.com/@${encodeURIComponent(username)}`;
    const postId = await pollUntil(this.polling, () => this.status(String(publishId), account)).catch(
      (error: unknown) => {
        // Only a FAILED status stops the wait with an error; a status request failing leaves the post to TikTok.
        if (error instanceof PlatformError && error.code === 'tiktok_publish_failed') throw error;
        return undefined;
      },
    );
    if (postId) return { id: postId, url: `${profile}/${video ? 'video' : 'photo'}/${encodeURIComponent(postId)}` };
    return { id: String(publishId), url: profile };
  }

  /**
   * The public post id once PUBLISH_COMPLETE (or the publish_id when TikTok gives none); undefined while processing.
   */
  private async status(publishId: string, account: AccountCredentials): Promise<string | undefined> {
    const answer = await this.api.call(this.url('/v2/post/publish/status/fetch/'), {
      method: 'POST',
      bearer: account.accessToken,
      json: { publish_id: publishId },
      harmless: true,
      secrets: [account.accessToken],
    });
    const data = answer.body?.data ?? {};
    if (data.status === 'FAILED') {
      throw new PlatformError(
        `TikTok could not publish the post: ${data.fail_reason ?? 'failed'}`,
        'rejected',
        'tiktok_publish_failed',
      );
    }
    if (data.status !== 'PUBLISH_COMPLETE') return undefined;
    // TikTok's field name is spelled this way.
    const ids = data.publicaly_available_post_id ?? data.publicly_available_post_id;
    return Array.isArray(ids) && ids.length ? String(ids[0]) : publishId;
  }

  private async creatorInfo(accessToken: string): Promise<any> {
    const answer = await this.api.call(this.url('/v2/post/publish/creator_info/query/'), {
      method: 'POST',
      bearer: accessToken,
      json: {},
      harmless: true,
      secrets: [accessToken],
    });
    return answer.body?.data ?? {};
  }

  private async token(form: Record<string, string | undefined>, secrets: (string | null)[]): Promise<TokenSet> {
    const secret = this.settings.TIKTOK_CLIENT_SECRET;
    const answer = await this.api.call(this.url('/v2/oauth/token/'), {
      method: 'POST',
      form: { client_key: this.settings.TIKTOK_CLIENT_KEY, client_secret: secret, ...form },
      secrets: [...secrets, secret],
    });
    return tokenAnswer(answer.body, { issuer: 'TikTok', platform: 'tiktok', scopes: SCOPES });
  }

  private url(path: string): string {
    return `${this.settings.TIKTOK_API_URL.replace(/\/+$/, '')}${path}`;
  }
}
