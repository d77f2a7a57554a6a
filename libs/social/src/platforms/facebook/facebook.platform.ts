import type { SocialConfig } from '../../social.config.js';
import { imagesOf, textLimitProblem, videosOf } from '../content-rules.js';
import { META_SETTINGS, MetaLogin, type MetaPage } from '../meta-graph.js';
import { renewAccess, requireRefreshToken } from '../oauth.js';
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

const SCOPES = ['pages_show_list', 'pages_manage_posts', 'pages_read_engagement'];

/** Facebook in the platform registry (platforms/registry.ts). */
export const FACEBOOK: SocialPlatformDefinition<'facebook'> = definePlatform({
  id: 'facebook',
  displayName: 'Facebook',
  textLimit: 63_206,
  textCount: 'codePoints',
  settings: META_SETTINGS,
  usesPkce: false,
  media: 'text, a link or images; no videos',
  notes:
    'A post on the Page shared when connecting, or a photo post of the first image; the link is sent as its own field.',
  audience: {
    peakHour: 13,
    topic: (query) => `${query} community groups`,
    advice: (query) => `On Facebook, share the story behind ${query} and invite questions in the comments.`,
    hashtag: 'shoplocal',
  },
  live: (config) => new FacebookPlatform(config),
});

/**
 * A Facebook Page, through Facebook Login. The account is the first Page `/me/accounts` lists;
 * what posts is that Page's access token (no expiry when it comes from a long-lived user token).
 * The long-lived user token is kept as the "refresh token": renewing access extends it and reads
 * the Page's token again.
 *
 * Publishing: text (and link) → `POST /{page-id}/feed {message, link}`; with images, the first
 * image → `POST /{page-id}/photos {url, caption}` (the link then goes into the caption). Videos
 * are not published to Pages by this provider (refused by `validate`).
 */
export class FacebookPlatform implements SocialPlatform {
  readonly id = FACEBOOK.id;
  readonly displayName = FACEBOOK.displayName;
  readonly usesPkce = FACEBOOK.usesPkce;
  private readonly meta: MetaLogin;

  constructor(private readonly config: SocialConfig) {
    this.meta = new MetaLogin(config, this.displayName, 'facebook');
  }

  get configured(): boolean {
    return this.meta.configured;
  }

  authorizeUrl(params: AuthorizeParams): string {
    return this.meta.dialogUrl(params, SCOPES);
  }

  async exchangeCode({ code, redirectUri }: ExchangeParams): Promise<ConnectedProfile> {
    const user = await this.meta.exchangeCode(code, redirectUri);
    const page = (await this.meta.pages(user.token)).find((candidate) => candidate.accessToken);
    if (!page)
      throw new PlatformError(
        'Facebook: no Page was shared with this app; choose a Page when connecting',
        'rejected',
        'facebook_no_page',
      );
    return { accountId: page.id, username: page.name, displayName: page.name, tokens: this.tokens(page, user.token) };
  }

  async refresh(account: AccountCredentials): Promise<TokenSet> {
    const userToken = requireRefreshToken(account, 'Facebook: connect the Page again');
    return renewAccess(this.displayName, async () => {
      const user = await this.meta.extend(userToken);
      const page = (await this.meta.pages(user.token)).find(
        (candidate) => candidate.id === account.accountId && candidate.accessToken,
      );
      if (!page)
        throw new PlatformError(
          'Facebook: the Page is no longer shared with this app',
          'reauthorize',
          'reauthorize_required',
        );
      return this.tokens(page, user.token);
    });
  }

  validate(content: PostContent): string[] {
    const problems = textLimitProblem(FACEBOOK, content.text);
    if (videosOf(content).length) problems.push('Facebook Page posts here take text, a link and images, not videos');
    if (!content.text.trim() && !content.link && imagesOf(content).length === 0)
      problems.push('Facebook needs text, a link or an image');
    return problems;
  }

  async publish(account: AccountCredentials, content: PostContent): Promise<PublishedPost> {
    const image = imagesOf(content)[0];
    const auth = { method: 'POST' as const, secrets: [account.accessToken] };
    let id: unknown;
    if (image) {
      const caption = [content.text.trim(), content.link ?? ''].filter(Boolean).join('\n');
      const answer = await this.meta.graph.call(this.meta.url(`/${encodeURIComponent(account.accountId)}/photos`), {
        ...auth,
        form: { url: image.url, caption: caption || undefined, access_token: account.accessToken },
      });
      // A photo post answers {id: photo id, post_id: page-post id}; the post id addresses the post.
      id = answer.body?.post_id ?? answer.body?.id;
    } else {
      const answer = await this.meta.graph.call(this.meta.url(`/${encodeURIComponent(account.accountId)}/feed`), {
        ...auth,
        form: {
          message: content.text.trim() || undefined,
          link: content.link ?? undefined,
          access_token: account.accessToken,
        },
      });
      id = answer.body?.id;
    }
    if (!id)
      throw new PlatformError(
        'Facebook accepted the post but did not return its id',
        'unknown_outcome',
        'unknown_outcome',
      );
    return { id: String(id), url: `https://www.facebook.com/${encodeURIComponent(String(id))}` };
  }

  private tokens(page: MetaPage, userToken: string): TokenSet {
    return { accessToken: page.accessToken, refreshToken: userToken, expiresAt: null, scopes: [...SCOPES] };
  }
}
