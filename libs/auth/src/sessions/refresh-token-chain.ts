import { createHmac } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { databaseConfig, type DatabaseConfig, hashToken, safeEqual } from '@app/core';

/** The token that rotating `token` makes: an HMAC of it under `key`, as URL-safe as a random token (43 characters). */
export function childRefreshToken(key: Buffer, token: string): string {
  return createHmac('sha256', key).update(`refresh-token:${token}`).digest('base64url');
}

/**
 * The refresh tokens of a session after its first (which is random): each is derived from its parent
 * under the installation key. The database keeps only hashes, so this is how a token presented again
 * within AUTH_REFRESH_REUSE_INTERVAL can be answered with its session's current token: whoever holds
 * the parent can have the server recompute the child, and no one else (without the key) can.
 */
@Injectable()
export class RefreshTokenChain {
  constructor(@Inject(databaseConfig.KEY) private readonly database: DatabaseConfig) {}

  /** The child of `token`, made when it is rotated. */
  child(token: string): string {
    return childRefreshToken(this.key(), token);
  }

  /**
   * The token `hops` rotations after `token`, if its hash is `expectedHash`; null when it is not (a
   * token of a session rotated before tokens were derived).
   */
  descendant(token: string, hops: number, expectedHash: Buffer): string | null {
    let current = token;
    for (let hop = 0; hop < hops; hop++) current = childRefreshToken(this.key(), current);
    return safeEqual(hashToken(current).toString('hex'), expectedHash.toString('hex')) ? current : null;
  }

  private key(): Buffer {
    const key = this.database.requestBindingKey;
    if (!key) throw new Error('The installation key is unknown: prepareDatabase has not run');
    return key;
  }
}
