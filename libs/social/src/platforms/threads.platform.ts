import type { AppConfig } from '@app/core';
import { textLimitProblem, textWithLink } from './content-rules.js';
import { graphFailure } from './meta-graph.js';
import { asReauthorize, expiresIn, PlatformHttp } from './platform-http.js';
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

const SCOPES = ['threads_basic', 'threads_content_publish'];
const VERSION = 'v1.0';

/**
 * Threads (graph.threads.net): the code → a short-lived token → a long-lived one (60 days,
 * `th_exchange_token`), renewed with `th_refresh_token`; no refresh token.
 *
 * Publishing: one container (`TEXT`, or `IMAGE`/`VIDEO` with the first medium; the text with the
 * link on its own line), then `threads_publish`, then the permalink. A media container is polled
 * until FINISHED (bounded; still IN_PROGRESS is `transient`, nothing was published).
 */
export class ThreadsPlatform implements SocialPlatform {
  readonly id = 'threads' as const;
  readonly displayName = 'Threads';
  readonly usesPkce = false;
  private readonly api: PlatformHttp;

  constructor(
    private readonly config: AppConfig,
    private readonly polling: PollingOptions = DEFAULT_POLLING,
  ) {
    this.api = new PlatformHttp('threads', this.displayName, config.SOCIAL_HTTP_TIMEOUT_MS, graphFailure);
  }

  get configured(): boolean {
    return Boolean(this.config.THREADS_APP_ID && this.config.THREADS_APP_SECRET);
  }

  authorizeUrl({ state, redirectUri }: AuthorizeParams): string {
    const url = new URL(this.config.THREADS_AUTHORIZE_URL);
    url.search = new URLSearchParams({
      client_id: this.config.THREADS_APP_ID ?? '',
      redirect_uri: redirectUri,
      scope: SCOPES.join(','),
      response_type: 'code',
      state,
    }).toString();
    return url.toString();
  }

  async exchangeCode({ code, redirectUri }: ExchangeParams): Promise<ConnectedProfile> {
    const secret = this.config.THREADS_APP_SECRET;
    const short = await this.api.call(this.url('/oauth/access_token'), {
      method: 'POST',
      form: {
        client_id: this.config.THREADS_APP_ID,
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
    if (!me.body?.id) throw new PlatformError('Threads did not say which account connected', 'rejected', 'threads_no_profile');
    const username = String(me.body.username ?? me.body.id);
    return { accountId: String(me.body.id), username, displayName: username, tokens };
  }

  async refresh(account: AccountCredentials): Promise<TokenSet> {
    try {
      const answer = await this.api.call(this.url('/refresh_access_token'), {
        query: { grant_type: 'th_refresh_token', access_token: account.accessToken },
        secrets: [account.accessToken],
      });
      return this.tokens(answer.body);
    } catch (error) {
      throw asReauthorize(error, this.displayName);
    }
  }

  validate(content: PostContent): string[] {
    const problems = textLimitProblem('threads', 'Threads', textWithLink(content));
    if (!textWithLink(content) && content.media.length === 0) problems.push('Threads needs text or media');
    return problems;
  }

  async publish(account: AccountCredentials, content: PostContent): Promise<PublishedPost> {
    const secrets = [account.accessToken];
    const user = encodeURIComponent(account.accountId);
    const text = textWithLink(content) || undefined;
    const medium = content.media[0];
    const form: Record<string, string | undefined> = !medium
      ? { media_type: 'TEXT', text }
      : medium.type === 'image'
        ? { media_type: 'IMAGE', image_url: medium.url, text }
        : { media_type: 'VIDEO', video_url: medium.url, text };
    const container = await this.api.call(this.url(`/${VERSION}/${user}/threads`), {
      method: 'POST',
      form: { ...form, access_token: account.accessToken },
      harmless: true,
      secrets,
    });
    const containerId = container.body?.id;
    if (!containerId) throw new PlatformError('Threads did not return a media container', 'transient', 'platform_unavailable');
    if (medium) await this.waitForContainer(String(containerId), account);

    const published = await this.api.call(this.url(`/${VERSION}/${user}/threads_publish`), {
      method: 'POST',
      form: { creation_id: String(containerId), access_token: account.accessToken },
      secrets,
    });
    const id = published.body?.id;
    if (!id) throw new PlatformError('Threads accepted the post but did not return its id', 'unknown_outcome', 'unknown_outcome');
    return { id: String(id), url: await this.permalink(String(id), account) };
  }

  private async waitForContainer(containerId: string, account: AccountCredentials): Promise<void> {
    const ready = await pollUntil(this.polling, async () => {
      const answer = await this.api.call(this.url(`/${VERSION}/${encodeURIComponent(containerId)}`), {
        query: { fields: 'status,error_message', access_token: account.accessToken },
        secrets: [account.accessToken],
      });
      const status = answer.body?.status;
      if (status === 'ERROR' || status === 'EXPIRED') {
        const reason = typeof answer.body?.error_message === 'string' ? `: ${answer.body.error_message}` : '';
        throw new PlatformError(`Threads could not process the media${reason}`, 'rejected', 'threads_media_error');
      }
      return status === 'FINISHED' || status === 'PUBLISHED' ? true : undefined;
    });
    if (!ready)
      throw new PlatformError('Threads is still processing the media; nothing was published yet', 'transient', 'media_processing');
  }

  /** The post's address; it is published already, so a failure here falls back to the profile. */
  private async permalink(id: string, account: AccountCredentials): Promise<string> {
    try {
      const answer = await this.api.call(this.url(`/${VERSION}/${encodeURIComponent(id)}`), {
        query: { fields: 'permalink', access_token: account.accessToken },
        secrets: [account.accessToken],
      });
      if (typeof answer.body?.permalink === 'string') return answer.body.permalink;
    } catch {
      // published; only the address is missing
    }
    return `https://www.threads.net/@${encodeURIComponent(account.username)}`;
  }

  private tokens(body: any): TokenSet {
    if (typeof body?.access_token !== 'string') throw new PlatformError('Threads answered without a token', 'rejected', 'threads_no_token');
    return { accessToken: body.access_token, refreshToken: null, expiresAt: expiresIn(body.expires_in), scopes: [...SCOPES] };
  }

  private url(path: string): string {
    return `${this.config.THREADS_API_URL.replace(/\/+$/, '')}${path}`;
  }
}
