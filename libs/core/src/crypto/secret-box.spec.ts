import { runtimeConfig } from '../config/runtime.config.js';
import { SecretBox } from './secret-box.js';

describe('SecretBox', () => {
  const box = new SecretBox(
    runtimeConfig.from({ NODE_ENV: 'test', ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') }),
  );

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
    const other = new SecretBox(
      runtimeConfig.from({ NODE_ENV: 'test', ENCRYPTION_KEY: Buffer.alloc(32, 8).toString('base64') }),
    );
    expect(() => other.open(sealed)).toThrow();
    expect(() => box.open('plain')).toThrow('not a sealed secret');
  });

  it('seals an answer bound to its row, under a key of its own, and opens nothing else', () => {
    const body = Buffer.from('{"success":true,"secret":"sk_abc"}');
    const aad = Buffer.from('user:u1\nkey-1\nPOST /functions/v1/x\nabc');
    const sealed = box.sealAnswer(body, aad);
    expect(sealed.includes(Buffer.from('sk_abc'))).toBe(false);
    expect(box.openAnswer(sealed, aad)).toEqual(body);
    expect(box.openAnswer(box.sealAnswer(Buffer.alloc(0), aad), aad)).toEqual(Buffer.alloc(0));
    // Another row's binding, tampered bytes, bytes never sealed, another ENCRYPTION_KEY: none opens.
    expect(box.openAnswer(sealed, Buffer.from('user:u2\nkey-1\nPOST /functions/v1/x\nabc'))).toBeNull();
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1] ^= 1;
    expect(box.openAnswer(tampered, aad)).toBeNull();
    expect(box.openAnswer(body, aad)).toBeNull();
    expect(box.openAnswer(Buffer.alloc(0), aad)).toBeNull();
    const otherKey = Buffer.alloc(32, 8).toString('base64');
    const other = new SecretBox(runtimeConfig.from({ NODE_ENV: 'test', ENCRYPTION_KEY: otherKey }));
    expect(other.openAnswer(sealed, aad)).toBeNull();
  });

  it('never opens, as an answer, what `seal` sealed under ENCRYPTION_KEY itself', () => {
    const sealed = box.seal('oauth-token').split('.');
    const [iv, tag, ciphertext] = sealed.slice(1).map((part) => Buffer.from(part, 'base64url'));
    const asAnswer = Buffer.concat([Buffer.from([1]), iv, tag, ciphertext]);
    expect(box.openAnswer(asAnswer, Buffer.alloc(0))).toBeNull();
  });
});
