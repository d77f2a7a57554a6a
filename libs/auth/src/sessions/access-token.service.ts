import { createSecretKey } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { JwtService, type JwtModuleOptions } from '@nestjs/jwt';
import { AppConfig, BoundedCache, ROLES, type Role, type UserPrincipal } from '@app/core';

/** Access tokens live exactly this long. */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;

export interface AccessTokenClaims {
  sub: string;
  email: string;
  role: Role;
  aud: string;
  iat: number;
  exp: number;
  session_id: string;
}

/**
 * HS256 with JWT_SECRET and JWT_AUDIENCE. The key is made once: given the secret as a string, the
 * JWT library would first try (and fail) to read it as a public key on every verification, which
 * cost a fifth of an authenticated read's CPU (docs/performance.md).
 */
export function accessTokenJwtOptions(config: AppConfig): JwtModuleOptions {
  return {
    secret: createSecretKey(Buffer.from(config.jwtSecret, 'utf8')),
    signOptions: { algorithm: 'HS256' },
    verifyOptions: { algorithms: ['HS256'], audience: config.JWT_AUDIENCE },
  };
}

/** Signs and verifies the access tokens, with accessTokenJwtOptions (AuthModule's JwtModule). */
@Injectable()
export class AccessTokenService {
  private readonly verified = new BoundedCache<string, { principal: UserPrincipal; exp: number }>(10_000);

  constructor(
    private readonly jwt: JwtService,
    private readonly config: AppConfig,
  ) {}

  sign(
    user: { id: string; email: string; role: Role },
    sessionId: string,
    now = Math.floor(Date.now() / 1000),
  ): { token: string; expiresAt: number } {
    const claims: AccessTokenClaims = {
      sub: user.id,
      email: user.email,
      role: user.role,
      aud: this.config.JWT_AUDIENCE,
      iat: now,
      exp: now + ACCESS_TOKEN_TTL_SECONDS,
      session_id: sessionId,
    };
    return { token: this.jwt.sign(claims), expiresAt: claims.exp };
  }

  /**
   * The token's principal, or null when it is malformed, tampered with, expired or for another
   * audience. A token that verified is remembered by its exact text until it expires: the same
   * bytes verify the same way, so the next request with it skips the signature and JSON work.
   */
  verify(token: string): UserPrincipal | null {
    const known = this.verified.get(token);
    if (known && known.exp > Date.now() / 1000) return known.principal;
    try {
      const claims = this.jwt.verify<AccessTokenClaims>(token);
      if (!claims.sub || !claims.session_id || !ROLES.includes(claims.role)) return null;
      const principal: UserPrincipal = Object.freeze({
        kind: 'user',
        userId: claims.sub,
        email: claims.email,
        role: claims.role,
        sessionId: claims.session_id,
      } as const);
      this.verified.set(token, { principal, exp: claims.exp });
      return principal;
    } catch {
      return null;
    }
  }
}
