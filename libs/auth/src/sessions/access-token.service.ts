import { createSecretKey, type KeyObject } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { JwtService, type JwtModuleOptions } from '@nestjs/jwt';
import type { Role } from '@app/core';
import { authConfig, type AuthConfig } from '../auth.config.js';

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

const keys = new WeakMap<AuthConfig, KeyObject>();

/**
 * JWT_SECRET as a secret key object, made once per configuration: given the secret as a string or
 * buffer, the JWT library would first try (and fail) to read it as a public key on every
 * verification, which cost a fifth of an authenticated read's CPU (docs/performance.md).
 */
export function accessTokenKey(config: AuthConfig): KeyObject {
  let key = keys.get(config);
  if (!key) keys.set(config, (key = createSecretKey(Buffer.from(config.jwtSecret, 'utf8'))));
  return key;
}

/** Signing: HS256 with JWT_SECRET for JWT_AUDIENCE (JwtStrategy verifies with the same key and rules). */
export function accessTokenJwtOptions(config: AuthConfig): JwtModuleOptions {
  return {
    secret: accessTokenKey(config),
    signOptions: { algorithm: 'HS256' },
    verifyOptions: { algorithms: ['HS256'], audience: config.JWT_AUDIENCE },
  };
}

/** Signs the access tokens (AuthModule's JwtModule, accessTokenJwtOptions); JwtStrategy verifies them. */
@Injectable()
export class AccessTokenService {
  constructor(
    private readonly jwt: JwtService,
    @Inject(authConfig.KEY) private readonly config: AuthConfig,
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
}
