import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { runtimeConfig, type RuntimeConfig } from '../config/runtime.config.js';

const VERSION = 'v1';
/** The first byte of a sealed answer (`sealAnswer`), and the length of its version byte, IV and tag. */
const SEALED_ANSWER_VERSION = 1;
const SEALED_ANSWER_HEADER = 29;
/** The HKDF info of the key that seals kept idempotent answers, and only them. */
export const ANSWER_KEY_INFO = 'storefront idempotency answer v1';

/**
 * Encrypts secrets at rest (webhook secrets, platform tokens) with AES-256-GCM under ENCRYPTION_KEY.
 * Format: `v1.<iv>.<tag>.<ciphertext>`, base64url parts; a fresh 96-bit IV per secret; tampering fails to open.
 * Kept idempotent answers (`sealAnswer`) use a key of their own, derived from ENCRYPTION_KEY.
 */
@Injectable()
export class SecretBox {
  private derivedAnswerKey: Buffer | undefined;

  constructor(@Inject(runtimeConfig.KEY) private readonly config: RuntimeConfig) {}

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.config.encryptionKey, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), ciphertext]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  open(sealed: string): string {
    const [version, iv, tag, ciphertext] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || ciphertext === undefined) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.config.encryptionKey, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }

  /**
   * Seals a kept idempotent answer's body under a key derived for that purpose only (ANSWER_KEY_INFO),
   * bound to `aad` (its caller, key, route and fingerprint): version byte, 96-bit IV, 128-bit tag, ciphertext.
   */
  sealAnswer(plaintext: Buffer, aad: Buffer): Buffer {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.answerKey(), iv);
    cipher.setAAD(aad);
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([Buffer.from([SEALED_ANSWER_VERSION]), iv, cipher.getAuthTag(), ciphertext]);
  }

  /**
   * Opens what `sealAnswer` sealed with the same `aad`; returns null for anything else (bytes never
   * sealed, sealed under another key, bound to another row, or tampered with): nothing unsealed passes.
   */
  openAnswer(stored: Buffer, aad: Buffer): Buffer | null {
    if (stored.length < SEALED_ANSWER_HEADER || stored[0] !== SEALED_ANSWER_VERSION) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.answerKey(), stored.subarray(1, 13));
      decipher.setAAD(aad);
      decipher.setAuthTag(stored.subarray(13, SEALED_ANSWER_HEADER));
      return Buffer.concat([decipher.update(stored.subarray(SEALED_ANSWER_HEADER)), decipher.final()]);
    } catch {
      return null;
    }
  }

  /** HKDF-SHA256 of ENCRYPTION_KEY for kept answers, derived once: never the key of secrets sealed by `seal`. */
  private answerKey(): Buffer {
    const derive = () => hkdfSync('sha256', this.config.encryptionKey, Buffer.alloc(0), ANSWER_KEY_INFO, 32);
    this.derivedAnswerKey ??= Buffer.from(derive());
    return this.derivedAnswerKey;
  }
}
