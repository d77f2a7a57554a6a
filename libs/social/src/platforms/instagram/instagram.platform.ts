import type { SocialConfig } from '../../social.config.js';
import { textLimitProblem, textWithLink } from '../content-rules.js';
import { MetaContainerFlow } from '../meta-container.js';
import { META_SETTINGS, MetaLogin } from '../meta-graph.js';
import { renewAccess } from '../oauth.js';
import { DEFAULT_POLLING, type PollingOptions } from '../polling.js';
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

const SCOPES = ['instagram_basic', 'instagram_content_publish', 'pages_show_list', 'pages_read_engagement'];

/** Instagram in the platform registry (platforms/registry.ts). */
export const INSTAGRAM: SocialPlatformDefinition<'instagram'> = definePlatform({
  id: 'instagram',
  displayName: 'Instagram',
  textLimit: 2_200,
  textCount: 'codePoints',
  settings: META_SETTINGS,
  usesPkce: false,
  media: 'an image or a video, required',
  notes:
    'The first media item is published from its URL through a container (a ' +
    'video becomes a Reel); the link goes on its own line of the caption.',
  audience: {
    peakHour: 11,
    topic: (query) => `${query} flat lays and carousels`,
    advice: (query) => `On Instagram, post carousels about ${query} and reuse the best frames in Stories.`,
    hashtag: 'instagood',
  },
  live: (config) => new InstagramPlatform(config),
});

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
  readonly id = INSTAGRAM.id;
  readonly displayName = INSTAGRAM.displayName;
  readonly usesPkce = INSTAGRAM.usesPkce;
  private readonly meta: MetaLogin;
  private readonly containers: MetaContainerFlow;

  constructor(
    private readonly config: SocialConfig,
    polling: PollingOptions = DEFAULT_POLLING,
  ) {
    this.meta = new MetaLogin(config, this.displayName, 'instagram');
    this.containers = new MetaContainerFlow({
      name: this.displayName,
      platform: 'instagram',
      http: this.meta.graph,
      url: (path) => this.meta.url(path),
      statusFields: { status: 'status_code', reason: 'status' },
      polling,
    });
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
    return renewAccess(this.displayName, async () => {
      const user = await this.meta.extend(account.accessToken);
      return { accessToken: user.token, refreshToken: null, expiresAt: user.expiresAt, scopes: [...SCOPES] };
    });
  }

  validate(content: PostContent): string[] {
    const problems = textLimitProblem(INSTAGRAM, textWithLink(content), 'caption');
    if (content.media.length === 0) problems.push('Instagram needs an image or a video');
    return problems;
  }

  async publish(account: AccountCredentials, content: PostContent): Promise<PublishedPost> {
    const medium = content.media[0];
    if (!medium) throw new PlatformError('Instagram needs an image or a video', 'rejected', 'instagram_media_required');
    const user = encodeURIComponent(account.accountId);
    const caption = textWithLink(content) || undefined;
    const containerId = await this.containers.create(
      `/${user}/media`,
      medium.type === 'image'
        ? { image_url: medium.url, caption }
        : { media_type: 'REELS', video_url: medium.url, caption },
      account,
    );
    await this.containers.waitUntilReady(containerId, account);
    const id = await this.containers.publish(`/${user}/media_publish`, containerId, account);
    return {
      id,
      url: await this.containers.permalink(
        id,
        account,
        `https://www.instagram.com/${encodeURIComponent(account.username)}/`,
      ),
    };
  }
}
