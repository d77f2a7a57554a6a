import type { AppConfig } from '@app/core';
import { textLimitProblem, textWithLink } from './content-rules.js';
import { MetaLogin } from './meta-graph.js';
import { asReauthorize } from './platform-http.js';
import { DEFAULT_POLLING, pollUntil, type PollingOptions } from './polling.js';
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

const SCOPES = ['instagram_basic', 'instagram_content_publish', 'pages_show_list', 'pages_read_engagement'];

/**
 * An Instagram professional account, through Facebook Login (Instagram Graph API). The account is
 * the Instagram account of the first Page `/me/accounts` lists that has one; what posts is the
 * long-lived user token (about 60 days), extended with `fb_exchange_token` on refresh.
 *
 * Publishing takes one medium, the first of the post's media: an image (`image_url`) or a video as
 * a Reel (`media_type=REELS`, `video_url`); the caption is the text with the link on its own line.
 * Container, then its status until FINISHED (bounded: still IN_PROGRESS after the polls is
 * `transient`, nothing was published), then `media_publish`, then the permalink.
 */
export class InstagramPlatform implements SocialPlatform {
  readonly id = 'instagram' as const;
  readonly displayName = 'Instagram';
  readonly usesPkce = false;
  private readonly meta: MetaLogin;

  constructor(
    private readonly config: AppConfig,
    private readonly polling: PollingOptions = DEFAULT_POLLING,
  ) {
    this.meta = new MetaLogin(config, this.displayName, 'instagram');
  }

  get configured(): boolean {
    return this.meta.configured;
  }

  authorizeUrl(params: AuthorizeParams): string {
    return this.meta.dialogUrl(params, SCOPES);
  }

  async exchangeCode({ code, redirectUri }: ExchangeParams): Promise<ConnectedProfile> {
    const user = await this.meta.exchangeCode(code, redirectUri);
    const instagram = (await this.meta.pages(user.token)).find((page) => page.instagram)?.instagram;
    if (!instagram) {
      throw new PlatformError(
        'Instagram: none of the shared Facebook Pages has an Instagram professional account linked',
        'rejected',
        'instagram_no_account',
      );
    }
    return {
      accountId: instagram.id,
      username: instagram.username,
      displayName: instagram.username,
      tokens: { accessToken: user.token, refreshToken: null, expiresAt: user.expiresAt, scopes: [...SCOPES] },
    };
  }

  async refresh(account: AccountCredentials): Promise<TokenSet> {
    try {
      const user = await this.meta.extend(account.accessToken);
      return { accessToken: user.token, refreshToken: null, expiresAt: user.expiresAt, scopes: [...SCOPES] };
    } catch (error) {
      throw asReauthorize(error, this.displayName);
    }
  }

  validate(content: PostContent): string[] {
    const problems = textLimitProblem('instagram', 'Instagram', textWithLink(content), 'caption');
    if (content.media.length === 0) problems.push('Instagram needs an image or a video');
    return problems;
  }

  async publish(account: AccountCredentials, content: PostContent): Promise<PublishedPost> {
    const medium = content.media[0];
    if (!medium) throw new PlatformError('Instagram needs an image or a video', 'rejected', 'instagram_media_required');
    const secrets = [account.accessToken];
    const user = encodeURIComponent(account.accountId);
    const caption = textWithLink(content) || undefined;
    const container = await this.meta.graph.call(this.meta.url(`/${user}/media`), {
      method: 'POST',
      form:
        medium.type === 'image'
          ? { image_url: medium.url, caption, access_token: account.accessToken }
          : { media_type: 'REELS', video_url: medium.url, caption, access_token: account.accessToken },
      harmless: true,
      secrets,
    });
    const containerId = container.body?.id;
    if (!containerId) throw new PlatformError('Instagram did not return a media container', 'transient', 'platform_unavailable');

    const ready = await pollUntil(this.polling, async () => {
      const status = await this.meta.graph.call(this.meta.url(`/${encodeURIComponent(containerId)}`), {
        query: { fields: 'status_code,status', access_token: account.accessToken },
        secrets,
      });
      const code = status.body?.status_code;
      if (code === 'ERROR' || code === 'EXPIRED') {
        const reason = typeof status.body?.status === 'string' ? `: ${status.body.status}` : '';
        throw new PlatformError(`Instagram could not process the media${reason}`, 'rejected', 'instagram_media_error');
      }
      return code === 'FINISHED' || code === 'PUBLISHED' ? true : undefined;
    });
    if (!ready)
      throw new PlatformError('Instagram is still processing the media; nothing was published yet', 'transient', 'media_processing');

    const published = await this.meta.graph.call(this.meta.url(`/${user}/media_publish`), {
      method: 'POST',
      form: { creation_id: String(containerId), access_token: account.accessToken },
      secrets,
    });
    const id = published.body?.id;
    if (!id) throw new PlatformError('Instagram accepted the post but did not return its id', 'unknown_outcome', 'unknown_outcome');
    return { id: String(id), url: await this.permalink(String(id), account) };
  }

  /** The post's address; it is published already, so a failure here falls back to the profile. */
  private async permalink(id: string, account: AccountCredentials): Promise<string> {
    try {
      const answer = await this.meta.graph.call(this.meta.url(`/${encodeURIComponent(id)}`), {
        query: { fields: 'permalink', access_token: account.accessToken },
        secrets: [account.accessToken],
      });
      if (typeof answer.body?.permalink === 'string') return answer.body.permalink;
    } catch {
      // published; only the address is missing
    }
    return `https://www.instagram.com/${encodeURIComponent(account.username)}/`;
  }
}
