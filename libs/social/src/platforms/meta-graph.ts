import type { SocialConfig } from '../social.config.js';
import { authorizeUrl, expiresIn } from './oauth.js';
import {
  matching,
  optionalText,
  readSettings,
  urlSetting,
  type SettingsOf,
  type SettingsSpec,
} from './platform-settings.js';
import { PlatformHttp, type PlatformFailure } from './platform-http.js';
import { PlatformError, type AuthorizeParams } from './social-platform.js';

/** Graph API codes for throttling (application, user, page, custom-level, and business-use-case limits). */
const RATE_LIMIT_CODES = new Set([4, 17, 32, 341, 613, 80001, 80002, 80004, 80005, 80006, 80008, 80014]);

/**
 * Graph API errors (Facebook, Instagram, Threads): `{error: {message, type, code, error_subcode,
 * is_transient}}`. Code 190 is an invalid or expired access token, whatever the HTTP status.
 */
export function graphFailure(body: any, status: number): PlatformFailure | null {
  const error = body?.error;
  if (status >= 200 && status < 300 && !error) return null;
  if (!error || typeof error !== 'object')
    return typeof error === 'string' ? { code: error, message: body.error_description ?? error } : {};
  const code = Number(error.code);
  const failure: PlatformFailure = {
    message: typeof error.error_user_msg === 'string' ? error.error_user_msg : error.message,
    code: Number.isFinite(code) ? String(error.error_subcode ? `${code}_${error.error_subcode}` : code) : error.type,
  };
  if (code === 190 || code === 102) failure.kind = 'auth_expired';
  else if (RATE_LIMIT_CODES.has(code)) failure.kind = 'rate_limited';
  else if (error.is_transient === true || code === 1 || code === 2) failure.kind = 'transient';
  return failure;
}

/** A Facebook Page the user manages, as `/me/accounts` lists it. */
export interface MetaPage {
  id: string;
  name: string;
  accessToken: string;
  instagram: { id: string; username: string } | null;
}

/** The settings of Facebook Login, which the Facebook and Instagram platforms share. */
export const META_SETTINGS = {
  META_APP_ID: optionalText('Facebook Login app, for Facebook Pages and Instagram professional accounts.'),
  META_APP_SECRET: optionalText("The Facebook Login app's secret."),
  META_DIALOG_URL: urlSetting('https://www.facebook.com', 'Facebook Login dialog.'),
  META_GRAPH_URL: urlSetting('https://graph.facebook.com', 'Graph API.'),
  META_GRAPH_VERSION: matching(/^v\d+\.\d+$/, 'must look like v21.0', 'v21.0', 'Graph API version.'),
} satisfies SettingsSpec;

/**
 * Facebook Login, shared by the Facebook (Pages) and Instagram (professional accounts) platforms:
 * the dialog, the code exchange, the long-lived user token (about 60 days; extended with
 * `fb_exchange_token`) and the Pages the user granted.
 */
export class MetaLogin {
  readonly graph: PlatformHttp;
  private readonly settings: SettingsOf<typeof META_SETTINGS>;

  constructor(config: SocialConfig, name: string, platform: 'facebook' | 'instagram') {
    this.graph = new PlatformHttp(platform, name, config.SOCIAL_HTTP_TIMEOUT_MS, graphFailure);
    this.settings = readSettings(META_SETTINGS, config);
  }

  get configured(): boolean {
    return Boolean(this.settings.META_APP_ID && this.settings.META_APP_SECRET);
  }

  /** `https://graph.facebook.com/v21.0` + path. */
  url(path: string): string {
    return `${this.settings.META_GRAPH_URL.replace(/\/+$/, '')}/${this.settings.META_GRAPH_VERSION}${path}`;
  }

  dialogUrl({ state, redirectUri }: AuthorizeParams, scopes: string[]): string {
    return authorizeUrl(
      `${this.settings.META_DIALOG_URL.replace(/\/+$/, '')}/${this.settings.META_GRAPH_VERSION}/dialog/oauth`,
      {
        client_id: this.settings.META_APP_ID ?? '',
        redirect_uri: redirectUri,
        state,
        response_type: 'code',
        scope: scopes.join(','),
      },
    );
  }

  /** The code → a short-lived user token → a long-lived one. */
  async exchangeCode(code: string, redirectUri: string): Promise<{ token: string; expiresAt: Date | null }> {
    const short = await this.graph.call(this.url('/oauth/access_token'), {
      query: {
        client_id: this.settings.META_APP_ID,
        client_secret: this.settings.META_APP_SECRET,
        redirect_uri: redirectUri,
        code,
      },
      secrets: [this.settings.META_APP_SECRET, code],
    });
    const token = short.body?.access_token;
    if (typeof token !== 'string')
      throw new PlatformError('Facebook answered the code exchange without a token', 'rejected', 'meta_no_token');
    return this.extend(token);
  }

  /** A new long-lived user token for this one (`grant_type=fb_exchange_token`). */
  async extend(token: string): Promise<{ token: string; expiresAt: Date | null }> {
    const long = await this.graph.call(this.url('/oauth/access_token'), {
      query: {
        grant_type: 'fb_exchange_token',
        client_id: this.settings.META_APP_ID,
        client_secret: this.settings.META_APP_SECRET,
        fb_exchange_token: token,
      },
      secrets: [this.settings.META_APP_SECRET, token],
    });
    const extended = long.body?.access_token;
    if (typeof extended !== 'string')
      throw new PlatformError('Facebook answered the token exchange without a token', 'rejected', 'meta_no_token');
    return { token: extended, expiresAt: expiresIn(long.body?.expires_in) };
  }

  /** The Pages the user granted, in Facebook's order, with their Page tokens and linked Instagram accounts. */
  async pages(userToken: string): Promise<MetaPage[]> {
    const answer = await this.graph.call(this.url('/me/accounts'), {
      query: { fields: 'id,name,access_token,instagram_business_account{id,username}', access_token: userToken },
      secrets: [userToken],
    });
    const data: any[] = Array.isArray(answer.body?.data) ? answer.body.data : [];
    return data
      .filter((page) => page?.id)
      .map((page) => ({
        id: String(page.id),
        name: String(page.name ?? page.id),
        accessToken: String(page.access_token ?? ''),
        instagram: page.instagram_business_account?.id
          ? {
              id: String(page.instagram_business_account.id),
              username: String(page.instagram_business_account.username ?? page.instagram_business_account.id),
            }
          : null,
      }));
  }
}
