import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { runtimeConfig, type RuntimeConfig } from '../config/runtime.config.js';

const VERSION = 'v1';
/** The first byte of sealed bytes (`sealBytes`); never the first byte of a JSON text. */
const SEALED_BYTES_VERSION = 1;

/**
 * Encrypts secrets at rest (webhook secrets, platform tokens) with AES-256-GCM under ENCRYPTION_KEY.
 * Format: `v1.<iv>.<tag>.<ciphertext>`, base64url parts; a fresh 96-bit IV per secret; tampering fails to open.
 */
@Injectable()
export class SecretBox {
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

  /** Bytes sealed the same way, as one buffer: version byte, 96-bit IV, 128-bit tag, ciphertext. */
  sealBytes(plaintext: Buffer): Buffer {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.config.encryptionKey, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([Buffer.from([SEALED_BYTES_VERSION]), iv, cipher.getAuthTag(), ciphertext]);
  }

  /** Opens what `sealBytes` sealed; bytes that were never sealed (an empty or JSON body) come back as they are. */
  openBytes(stored: Buffer): Buffer {
    if (stored.length === 0 || stored[0] !== SEALED_BYTES_VERSION) return stored;
    const decipher = createDecipheriv('aes-256-gcm', this.config.encryptionKey, stored.subarray(1, 13));
    decipher.setAuthTag(stored.subarray(13, 29));
    return Buffer.concat([decipher.update(stored.subarray(29)), decipher.final()]);
  }
}
