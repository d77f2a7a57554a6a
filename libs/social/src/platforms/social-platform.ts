import type { SafeHttpClient } from '@app/core';
import type { SocialConfig } from '../social.config.js';
import type { SettingsSpec } from './platform-settings.js';
import type { SocialPlatformId } from './registry.js';

/**
 * One social platform behind one interface (docs/architecture.md § Social publishing): OAuth,
 * the platform's publishing rules and its publishing API. The publishing service never asks which
 * platform it holds; everything that differs lives in the platform's class.
 */

export interface MediaItem {
  type: 'image' | 'video';
  /** A public http(s) URL. Platforms that pull media themselves (Instagram, Threads, Facebook, TikTok) get the URL. */
  url: string;
}

/** What is published: the same for every platform of one request. */
export interface PostContent {
  text: string;
  media: MediaItem[];
  link: string | null;
}

/** Tokens as the platform issued them. */
export interface TokenSet {
  accessToken: string;
  /**
   * What renews access: the platform's refresh token (X, TikTok, YouTube); for Facebook the
   * long-lived user token from which a fresh Page token is read; null where the access token is
   * itself extended (Instagram, Threads).
   */
  refreshToken: string | null;
  /** Null when the platform says the token does not expire. */
  expiresAt: Date | null;
  scopes: string[];
}

/** The account a completed connect yields. */
export interface ConnectedProfile {
  /** The platform's id of the account that posts (X user id, Instagram user id, Facebook Page id, …). */
  accountId: string;
  /** Handle or page name, shown to the merchant. */
  username: string;
  displayName: string | null;
  tokens: TokenSet;
}

/** A stored account, decrypted, as a platform needs it to publish. */
export interface AccountCredentials {
  accountId: string;
  username: string;
  accessToken: string;
  refreshToken: string | null;
  expiresAt: Date | null;
}

export interface PublishedPost {
  /** The platform's own id of the post, without prefix (the service adds `<platform>_`). */
  id: string;
  /** The post's public address. */
  url: string;
}

/**
 * How a platform call failed, which decides what happens next:
 * - `auth_expired`: the access token is no longer accepted → refresh, then retry once;
 * - `rate_limited` / `transient` (429, 5xx, connection refused before sending): safe to retry later;
 * - `unknown_outcome`: the request may have reached the platform (timeout after sending) — never
 *   retried blindly, since publishing is not idempotent on any platform;
 * - `rejected`: the platform refused this content or account (4xx) → a failed result, no retry;
 * - `reauthorize`: the refresh itself was refused → the merchant must connect the account again.
 */
export type PlatformErrorKind =
  'auth_expired' | 'rate_limited' | 'transient' | 'unknown_outcome' | 'rejected' | 'reauthorize';

export class PlatformError extends Error {
  override readonly name = 'PlatformError';

  constructor(
    message: string,
    readonly kind: PlatformErrorKind,
    /** A short machine code for the result's `error.code`, e.g. `x_duplicate_content`, `rate_limited`. */
    readonly code: string,
    options: { cause?: unknown; retryAfterMs?: number } = {},
  ) {
    super(message, { cause: options.cause });
    this.retryAfterMs = options.retryAfterMs;
  }

  /** From the platform's Retry-After (or its reset header), when it gave one. */
  readonly retryAfterMs?: number;
}

export interface AuthorizeParams {
  /** The single-use state to echo back. */
  state: string;
  /** This service's callback URL (the same in `exchangeCode`). */
  redirectUri: string;
  /** S256 challenge of the verifier, when `usesPkce`. */
  codeChallenge: string | null;
}

export interface ExchangeParams {
  code: string;
  redirectUri: string;
  /** The PKCE verifier, when `usesPkce`. */
  codeVerifier: string | null;
}

export interface SocialPlatform {
  readonly id: SocialPlatformId;
  /** Human name ("X", "Instagram"). */
  readonly displayName: string;
  /** Whether connect uses PKCE (S256): X requires it; used wherever the platform supports it. */
  readonly usesPkce: boolean;
  /** Whether this platform is configured (client id and secret present, or sandbox). */
  readonly configured: boolean;

  /** The consent page URL the merchant's browser is sent to. */
  authorizeUrl(params: AuthorizeParams): string;
  /** Exchanges the callback's code for tokens and reads the account that posts. */
  exchangeCode(params: ExchangeParams): Promise<ConnectedProfile>;
  /** New tokens for an account (refresh token, or extending a long-lived token). Throws `reauthorize` when refused. */
  refresh(account: AccountCredentials): Promise<TokenSet>;
  /** What is wrong with this content for this platform (text limit, required media); empty when it can be published. */
  validate(content: PostContent): string[];
  /** Publishes; throws `PlatformError` (classified) on failure. */
  publish(account: AccountCredentials, content: PostContent): Promise<PublishedPost>;
}

/** How a platform counts the length of a post's text. */
export type TextCount =
  /** As X's own client does (`twitter-text`): any URL is 23, emoji and CJK characters 2. */
  | 'weighted'
  /** Unicode code points of the NFC form. */
  | 'codePoints';

/**
 * What the rest of the service knows of a platform, declared in the platform's folder and listed in
 * `SOCIAL_PLATFORM_DEFINITIONS` (platforms/registry.ts): the ids the API accepts, the OpenAPI enums,
 * the validation messages, the database's `social_platforms` rows, the AI functions' text limits and
 * docs/platforms.md all derive from these.
 */
export interface SocialPlatformDefinition<Id extends string = string> {
  /** The id in requests, answers, post ids (`<id>_<platform's id>`) and the database. */
  readonly id: Id;
  /** Human name ("X", "Instagram"). */
  readonly displayName: string;
  /** The longest post text the platform takes, counted as `textCount` says. */
  readonly textLimit: number;
  readonly textCount: TextCount;
  /** Its settings (client id and secret, API URLs), read from the environment. */
  readonly settings: SettingsSpec;
  /** Whether connect uses PKCE (S256): wherever the platform supports it. */
  readonly usesPkce: boolean;
  /** What media a post may or must carry there, as a phrase (`exactly one video`), for the docs and OpenAPI. */
  readonly media: string;
  /** What else differs on this platform when connecting and publishing, for docs/platforms.md (a sentence or two). */
  readonly notes: string;
  /** What the offline AI provider says of the platform (English). */
  readonly audience: {
    /** The local hour (0–23) its audience is most active: the suggested time of a post written for it. */
    readonly peakHour: number;
    /** A trending topic there, about the query. */
    topic(query: string): string;
    /** A recommendation for posting there about the query. */
    advice(query: string): string;
    /** A hashtag its users follow, without `#`. */
    readonly hashtag: string;
  };
  /** The platform's client for SOCIAL_MODE=live (the sandbox keeps its rules). */
  live(config: SocialConfig, http: SafeHttpClient): SocialPlatform;
}

/** A platform's definition, checked at load: a bad one stops the start-up. */
export function definePlatform<const Id extends string>(
  definition: SocialPlatformDefinition<Id>,
): SocialPlatformDefinition<Id> {
  const { id, textLimit, audience } = definition;
  if (!/^[a-z][a-z0-9_]{0,29}$/.test(id))
    throw new Error(`social platform id "${id}": lower-case letters, digits and _, at most 30`);
  if (!Number.isInteger(textLimit) || textLimit < 1)
    throw new Error(`social platform ${id}: textLimit must be a positive whole number`);
  if (!Number.isInteger(audience.peakHour) || audience.peakHour < 0 || audience.peakHour > 23) {
    throw new Error(`social platform ${id}: audience.peakHour must be an hour, 0 to 23`);
  }
  return Object.freeze({ ...definition });
}

/** Injection token of the registry: one `SocialPlatform` per id, chosen by `SOCIAL_MODE`. */
export const SOCIAL_PLATFORMS_REGISTRY = Symbol('SOCIAL_PLATFORMS_REGISTRY');
export type SocialPlatformRegistry = ReadonlyMap<SocialPlatformId, SocialPlatform>;
