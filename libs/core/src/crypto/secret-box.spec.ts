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

  it('seals bytes apart from what was never sealed, and refuses tampered bytes', () => {
    const body = Buffer.from('{"success":true,"secret":"sk_abc"}');
    const sealed = box.sealBytes(body);
    expect(sealed.includes(Buffer.from('sk_abc'))).toBe(false);
    expect(box.openBytes(sealed)).toEqual(body);
    // Kept before sealing began: an empty body and a JSON text come back as they are.
    expect(box.openBytes(Buffer.alloc(0))).toEqual(Buffer.alloc(0));
    expect(box.openBytes(body)).toEqual(body);
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1] ^= 1;
    expect(() => box.openBytes(tampered)).toThrow();
  });
});
