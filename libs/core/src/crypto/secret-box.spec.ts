import { runtimeConfig } from '../config/runtime.config.js';
import { SecretBox } from './secret-box.js';

describe('SecretBox', () => {
  const box = new SecretBox(runtimeConfig.from({ NODE_ENV: 'test', ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') }));

  it('round-trips and never repeats a ciphertext', () => {
    const a = box.seal('whsec_abc');
    const b = box.seal('whsec_abc');
    expect(a).not.toBe(b);
    expect(a).not.toContain('whsec_abc');
    expect(box.open(a)).toBe('whsec_abc');
    expect(box.open(b)).toBe('whsec_abc');
  });

  it('refuses tampered data and another key', () => {
    const sealed = box.seal('secret value');
    const parts = sealed.split('.');
    const flipped = Buffer.from(parts[3], 'base64url');
    flipped[0] ^= 1;
    expect(() => box.open([parts[0], parts[1], parts[2], flipped.toString('base64url')].join('.'))).toThrow();
    const other = new SecretBox(runtimeConfig.from({ NODE_ENV: 'test', ENCRYPTION_KEY: Buffer.alloc(32, 8).toString('base64') }));
    expect(() => other.open(sealed)).toThrow();
    expect(() => box.open('plain')).toThrow('not a sealed secret');
  });
});
