import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { SocialPlatformId } from './registry.js';
import { addCodeChallenge } from './oauth.js';
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

/** Where the sandbox's pages live (SocialSandboxController), under the service's base URL. */
export const SANDBOX_PATH = '/functions/v1/social-sandbox';
const TOKEN_TTL_MS = 2 * 3600_000;

const digest = (text: string) => createHash('sha256').update(text).digest('base64url');

/**
 * A code the sandbox consent page issues: random, and bound to the PKCE challenge it saw
 * (`sandbox_<random>.<base64url(sha256(challenge or ""))>`), so that the exchange can check the
 * verifier against it as a platform would.
 */
export function sandboxCode(challenge: string | null): string {
  return `sandbox_${randomBytes(18).toString('base64url')}.${digest(challenge ?? '')}`;
}

/**
 * Whether `code` came from the sandbox consent page and, when a verifier is given, whether
 * S256(verifier) is the challenge the page saw (without PKCE: that no challenge was seen).
 */
export function sandboxCodeMatches(code: string, codeVerifier: string | null): boolean {
  const match = /^sandbox_[A-Za-z0-9_-]{16,64}\.([A-Za-z0-9_-]{43})$/.exec(code);
  if (!match) return false;
  const expected = Buffer.from(digest(codeVerifier === null ? '' : digest(codeVerifier)));
  const seen = Buffer.from(match[1]);
  return expected.length === seen.length && timingSafeEqual(expected, seen);
}

/**
 * SOCIAL_MODE=sandbox: a platform that completes connect and publishing without any network, with
 * the live platform's rules (`validate`, `usesPkce`, `displayName` come from the live class, so
 * they are written once). Every URL it returns is on this service, under `/social-sandbox/`.
 */
export class SandboxPlatform implements SocialPlatform {
  readonly configured = true;

  constructor(
    /** The live platform whose rules apply. */
    private readonly rules: Pick<SocialPlatform, 'id' | 'displayName' | 'usesPkce' | 'validate'>,
    /** `HttpConfig.baseUrl`. */
    private readonly baseUrl: string,
  ) {}

  get id(): SocialPlatformId {
    return this.rules.id;
  }

  get displayName(): string {
    return this.rules.displayName;
  }

  get usesPkce(): boolean {
    return this.rules.usesPkce;
  }

  authorizeUrl({ state, redirectUri, codeChallenge }: AuthorizeParams): string {
    const params = new URLSearchParams({ platform: this.id, state, redirect_uri: redirectUri });
    addCodeChallenge(params, this.usesPkce ? codeChallenge : null);
    return `${this.baseUrl}${SANDBOX_PATH}/authorize?${params.toString()}`;
  }

  async exchangeCode({ code, codeVerifier }: ExchangeParams): Promise<ConnectedProfile> {
    if (!sandboxCodeMatches(code, this.usesPkce ? codeVerifier : null)) {
      throw new PlatformError(
        `${this.displayName} (sandbox) refused the code: unknown, or the PKCE verifier does not match`,
        'rejected',
        'invalid_grant',
      );
    }
    const stable = createHash('sha256').update(`${this.baseUrl}|${this.id}`).digest('hex').slice(0, 12);
    return {
      accountId: `sandbox-${this.id}-${stable}`,
      username: `sandbox_${this.id}_user`,
      displayName: `Sandbox ${this.displayName} account`,
      tokens: this.newTokens(),
    };
  }

  async refresh(_account: AccountCredentials): Promise<TokenSet> {
    return this.newTokens();
  }

  validate(content: PostContent): string[] {
    return this.rules.validate(content);
  }

  async publish(_account: AccountCredentials, _content: PostContent): Promise<PublishedPost> {
    // 19 digits, the shape of X's and Instagram's ids; the first never 0.
    const id = `${randomInt(1, 10)}${Array.from({ length: 18 }, () => randomInt(0, 10)).join('')}`;
    return { id, url: `${this.baseUrl}${SANDBOX_PATH}/posts/${this.id}/${id}` };
  }

  private newTokens(): TokenSet {
    return {
      accessToken: `sandbox_at_${randomBytes(24).toString('base64url')}`,
      refreshToken: `sandbox_rt_${randomBytes(24).toString('base64url')}`,
      expiresAt: new Date(Date.now() + TOKEN_TTL_MS),
      scopes: ['sandbox'],
    };
  }
}
