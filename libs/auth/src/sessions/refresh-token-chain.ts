import { createHmac, hkdfSync } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { hashToken, runtimeConfig, type RuntimeConfig, safeEqual } from '@app/core';

/** HKDF's info: this key serves the refresh-token chain alone, whatever else ENCRYPTION_KEY keys. */
const CHAIN_KEY_INFO = 'storefront refresh-token chain v1';

/** The chain's key: HKDF-SHA256 of ENCRYPTION_KEY, which lives in the API's settings and never in the database. */
export function refreshChainKey(encryptionKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', encryptionKey, Buffer.alloc(0), CHAIN_KEY_INFO, 32));
}

/** The token that rotating `token` makes: an HMAC of it under `key`, as URL-safe as a random token (43 characters). */
export function childRefreshToken(key: Buffer, token: string): string {
  return createHmac('sha256', key).update(`refresh-token:${token}`).digest('base64url');
}

/**
 * The refresh tokens of a session after its first (which is random): each is derived from its parent
 * under a key derived from ENCRYPTION_KEY (never from anything the database keeps, such as the
 * request-binding key). The database keeps only hashes, so this is how a token presented again within
 * AUTH_REFRESH_REUSE_INTERVAL can be answered with its session's current token: whoever holds the
 * parent can have the server recompute the child, and no one else can, not even with a copy of the
 * database. Changing ENCRYPTION_KEY only stops older parents from being answered again (refused,
 * nothing revoked).
 */
@Injectable()
export class RefreshTokenChain {
  private chainKey?: Buffer;

  constructor(@Inject(runtimeConfig.KEY) private readonly runtime: RuntimeConfig) {}

  /** The child of `token`, made when it is rotated. */
  child(token: string): string {
    return childRefreshToken(this.key(), token);
  }

  /**
   * The token `hops` rotations after `token`, if its hash is `expectedHash`; null when it is not (a
   * token of a session rotated before tokens were derived, or under another key).
   */
  descendant(token: string, hops: number, expectedHash: Buffer): string | null {
    let current = token;
    for (let hop = 0; hop < hops; hop++) current = childRefreshToken(this.key(), current);
    return safeEqual(hashToken(current).toString('hex'), expectedHash.toString('hex')) ? current : null;
  }

  private key(): Buffer {
    this.chainKey ??= refreshChainKey(this.runtime.encryptionKey);
    return this.chainKey;
  }
}
