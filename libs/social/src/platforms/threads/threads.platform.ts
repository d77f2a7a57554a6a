import type { SocialConfig } from '../../social.config.js';
import { textLimitProblem, textWithLink } from '../content-rules.js';
import { MetaContainerFlow } from '../meta-container.js';
import { graphFailure } from '../meta-graph.js';
import { authorizeUrl, expiresIn, renewAccess } from '../oauth.js';
import { PlatformHttp } from '../platform-http.js';
import { optionalText, readSettings, urlSetting, type SettingsOf, type SettingsSpec } from '../platform-settings.js';
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

const SCOPES = ['threads_basic', 'threads_content_publish'];
const VERSION = 'v1.0';

/** Its settings, read from the environment (docs/platforms.md lists them). */
export const THREADS_SETTINGS = {
  THREADS_APP_ID: optionalText('Threads app.'),
  THREADS_APP_SECRET: optionalText("The Threads app's secret."),
  THREADS_AUTHORIZE_URL: urlSetting('https://threads.net/oauth/authorize', "Threads' consent page."),
  THREADS_API_URL: urlSetting('https://graph.threads.net', "Threads' API."),
} satisfies SettingsSpec;

/** Threads in the platform registry (platforms/registry.ts). */
export const THREADS: SocialPlatformDefinition<'threads'> = definePlatform({
  id: 'threads',
  displayName: 'Threads',
  textLimit: 500,
  textCount: 'codePoints',
  settings: THREADS_SETTINGS,
  usesPkce: false,
  media: 'optional: the first image or video is published',
  notes: 'The first media item is published from its URL through a container; the link goes on its own line.',
  audience: {
    peakHour: 12,
    topic: (query) => `${query} conversations`,
    advice: (query) => `On Threads, open a conversation about ${query} with a question rather than a sales pitch.`,
    hashtag: 'threads',
  },
  live: (config) => new ThreadsPlatform(config),
});

/**
 * Threads (graph.threads.net): the code → a short-lived token → a long-lived one (60 days,
 * `th_exchange_token`), renewed with `th_refresh_token`; no refresh token.
 *
 * Publishing: one container (`TEXT`, or `IMAGE`/`VIDEO` with the first medium; the text with the
 * link on its own line), then `threads_publish`, then the permalink. A media container is polled
 * until FINISHED (bounded; still IN_PROGRESS is `transient`, nothing was published).
 */
export class ThreadsPlatform implements SocialPlatform {
  readonly id = THREADS.id;
  readonly displayName = THREADS.displayName;
  readonly usesPkce = THREADS.usesPkce;
  private readonly api: PlatformHttp;
  private readonly settings: SettingsOf<typeof THREADS_SETTINGS>;
  private readonly containers: MetaContainerFlow;

  constructor(
    private readonly config: SocialConfig,
    polling: PollingOptions = DEFAULT_POLLING,
  ) {
    this.api = new PlatformHttp('threads', this.displayName, config.SOCIAL_HTTP_TIMEOUT_MS, graphFailure);
    this.settings = readSettings(THREADS_SETTINGS, config);
    this.containers = new MetaContainerFlow({
      name: this.displayName,
      platform: 'threads',
      http: this.api,
      url: (path) => this.url(`/${VERSION}${path}`),
      statusFields: { status: 'status', reason: 'error_message' },
      polling,
    });
  }

  get configured(): boolean {
    return Boolean(this.settings.THREADS_APP_ID && this.settings.THREADS_APP_SECRET);
  }

  authorizeUrl({ state, redirectUri }: AuthorizeParams): string {
    return authorizeUrl(this.settings.THREADS_AUTHORIZE_URL, {
      client_id: this.settings.THREADS_APP_ID ?? '',
      redirect_uri: redirectUri,
      scope: SCOPES.join(','),
      response_type: 'code',
      state,
    });
  }

  async exchangeCode({ code, redirectUri }: ExchangeParams): Promise<ConnectedProfile> {
    const secret = this.settings.THREADS_APP_SECRET;
    const short = await this.api.call(this.url('/oauth/access_token'), {
      method: 'POST',
      form: {
        client_id: this.settings.THREADS_APP_ID,
        client_secret: secret,
        grant_type: 'authorization_code',
        redirect_uri: redirectUri,
        code,
      },
      harmless: true,
      secrets: [secret, code],
    });
    if (typeof short.body?.access_token !== 'string')
      throw new PlatformError('Threads answered without a token', 'rejected', 'threads_no_token');
    const long = await this.api.call(this.url('/access_token'), {
      query: { grant_type: 'th_exchange_token', client_secret: secret, access_token: short.body.access_token },
      secrets: [secret, short.body.access_token],
    });
    const tokens = this.tokens(long.body);
    const me = await this.api.call(this.url(`/${VERSION}/me`), {
      query: { fields: 'id,username', access_token: tokens.accessToken },
      secrets: [tokens.accessToken],
    });
    if (!me.body?.id)
      throw new PlatformError('Threads did not say which account connected', 'rejected', 'threads_no_profile');
    const username = String(me.body.username ?? me.body.id);
    return { accountId: String(me.body.id), username, displayName: username, tokens };
  }

  async refresh(account: AccountCredentials): Promise<TokenSet> {
    return renewAccess(this.displayName, async () => {
      const answer = await this.api.call(this.url('/refresh_access_token'), {
        query: { grant_type: 'th_refresh_token', access_token: account.accessToken },
        secrets: [account.accessToken],
      });
      return this.tokens(answer.body);
    });
  }

  validate(content: PostContent): string[] {
    const problems = textLimitProblem(THREADS, textWithLink(content));
    if (!textWithLink(content) && content.media.length === 0) problems.push('Threads needs text or media');
    return problems;
  }

  async publish(account: AccountCredentials, content: PostContent): Promise<PublishedPost> {
    const user = encodeURIComponent(account.accountId);
    const text = textWithLink(content) || undefined;
    const medium = content.media[0];
    const form: Record<string, string | undefined> = !medium
      ? { media_type: 'TEXT', text }
      : medium.type === 'image'
        ? { media_type: 'IMAGE', image_url: medium.url, text }
        : { media_type: 'VIDEO', video_url: medium.url, text };
    const containerId = await this.containers.create(`/${user}/threads`, form, account);
    // A text container is ready at once; a media one is processed first.
    if (medium) await this.containers.waitUntilReady(containerId, account);
    const id = await this.containers.publish(`/${user}/threads_publish`, containerId, account);
    return {
      id,
      url: await this.containers.permalink(
        id,
        account,
        `https://www.threads.net/@${encodeURIComponent(account.username)}`,
      ),
    };
  }

  private tokens(body: any): TokenSet {
    if (typeof body?.access_token !== 'string')
      throw new PlatformError('Threads answered without a token', 'rejected', 'threads_no_token');
    return {
      accessToken: body.access_token,
      refreshToken: null,
      expiresAt: expiresIn(body.expires_in),
      scopes: [...SCOPES],
    };
  }

  private url(path: string): string {
    return `${this.settings.THREADS_API_URL.replace(/\/+$/, '')}${path}`;
  }
}
