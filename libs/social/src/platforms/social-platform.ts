import type { SocialPlatformId } from '../platform-text.js';

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
export type PlatformErrorKind = 'auth_expired' | 'rate_limited' | 'transient' | 'unknown_outcome' | 'rejected' | 'reauthorize';

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

/** Injection token of the registry: one `SocialPlatform` per id, chosen by `SOCIAL_MODE`. */
export const SOCIAL_PLATFORMS_REGISTRY = Symbol('SOCIAL_PLATFORMS_REGISTRY');
export type SocialPlatformRegistry = ReadonlyMap<SocialPlatformId, SocialPlatform>;
