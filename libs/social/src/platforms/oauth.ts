import type { SocialPlatformId } from './registry.js';
import type { PlatformFailure } from './platform-http.js';
import { PlatformError, type AccountCredentials, type TokenSet } from './social-platform.js';

/**
 * The OAuth 2.0 steps the platforms share: the consent URL, reading a token answer, and renewing
 * access, so their failures are classified in one place, the same for every platform. What differs
 * (parameter names, client authentication, who rotates refresh tokens) stays in each platform's
 * class.
 */

/** Adds the PKCE S256 challenge (RFC 7636 §4.3) to authorize parameters, when there is one. */
export function addCodeChallenge(params: URLSearchParams, codeChallenge: string | null): URLSearchParams {
  if (codeChallenge) {
    params.set('code_challenge', codeChallenge);
    params.set('code_challenge_method', 'S256');
  }
  return params;
}

/** The consent page URL: `base` with `params` in their order, then the PKCE challenge when there is one. */
export function authorizeUrl(
  base: string,
  params: Record<string, string>,
  codeChallenge: string | null = null,
): string {
  const url = new URL(base);
  url.search = addCodeChallenge(new URLSearchParams(params), codeChallenge).toString();
  return url.toString();
}

/**
 * The tokens of a standard token answer (RFC 6749 §5.1): its `refresh_token`, else `keptRefreshToken`
 * (for a platform that does not rotate it); its `scope`, else `scopes`. An answer without an access
 * token is `rejected` (`<platform>_no_token`), naming `issuer`.
 */
export function tokenAnswer(
  body: any,
  expected: { issuer: string; platform: SocialPlatformId; scopes: string[]; keptRefreshToken?: string | null },
): TokenSet {
  if (typeof body?.access_token !== 'string') {
    throw new PlatformError(
      `${expected.issuer} answered the token request without a token`,
      'rejected',
      `${expected.platform}_no_token`,
    );
  }
  return {
    accessToken: body.access_token,
    refreshToken: typeof body.refresh_token === 'string' ? body.refresh_token : (expected.keptRefreshToken ?? null),
    expiresAt: expiresIn(body.expires_in),
    scopes: scopeList(body.scope, expected.scopes),
  };
}

/** The account's refresh token; without one, the merchant must connect again (`reauthorize`, with `message`). */
export function requireRefreshToken(account: AccountCredentials, message: string): string {
  if (!account.refreshToken) throw new PlatformError(message, 'reauthorize', 'reauthorize_required');
  return account.refreshToken;
}

/**
 * Runs a renewal of access; a refusal by the platform becomes `reauthorize` (see `asReauthorize`), other failures keep
 * their class.
 */
export async function renewAccess<T>(name: string, renew: () => Promise<T>): Promise<T> {
  try {
    return await renew();
  } catch (error) {
    throw asReauthorize(error, name);
  }
}

/** Reads the standard OAuth 2.0 error body `{error, error_description}` (RFC 6749 §5.2). */
export function oauthFailure(body: any): PlatformFailure | null {
  if (body && typeof body.error === 'string') {
    return {
      code: body.error,
      message: typeof body.error_description === 'string' ? body.error_description : body.error,
    };
  }
  return null;
}

/**
 * A refused refresh (invalid_grant, a revoked token: 400/401) means the merchant must connect again;
 * other failures (429, 5xx, timeouts) keep their class.
 */
export function asReauthorize(error: unknown, name: string): unknown {
  if (error instanceof PlatformError && (error.kind === 'rejected' || error.kind === 'auth_expired')) {
    return new PlatformError(
      `${name} refused to renew access: ${error.message}`,
      'reauthorize',
      'reauthorize_required',
      { cause: error },
    );
  }
  return error;
}

/** `expires_in` seconds from now, or null when absent. */
export function expiresIn(seconds: unknown, now = Date.now()): Date | null {
  const value = Number(seconds);
  return Number.isFinite(value) && value > 0 ? new Date(now + value * 1000) : null;
}

/** Splits a scope string on spaces or commas. */
export function scopeList(scope: unknown, fallback: string[]): string[] {
  return typeof scope === 'string' && scope.trim() ? scope.split(/[\s,]+/).filter(Boolean) : fallback;
}
